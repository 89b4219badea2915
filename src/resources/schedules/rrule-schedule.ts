/**
 * What a parsed rrule means in time: its occurrences as instants, the schedule's computed fields
 * (dtstart, dtend, next_run, timezone, until) and the preview. Rules are evaluated over wall-clock
 * times in the DTSTART zone, so 09:00 stays 09:00 across DST changes; a wall-clock time a DST
 * change skips has no occurrence (as AWX skips "imaginary" times).
 */
import { Frequency, RRule } from './rrule-lib.ts';
import type { ParsedRrule } from './rrule-text.ts';
import { floatingIso, utcToWall, wallToUtc, zonedIso } from './zone-time.ts';

const WEEK = 7 * 86_400_000;

const rulesOf = (list: ParsedRrule['rules'], start: Date) => list.map((options) => new RRule({ ...options, dtstart: start }));

/**
 * Minutely and hourly rules without COUNT that started more than a week ago are evaluated from a
 * week ago at the same time of day (AWX's fast forward), so old schedules stay cheap.
 */
function effectiveStart(parsed: ParsedRrule, now: Date): Date {
  const old = now.getTime() - utcToWall(now, parsed.zone).getTime() + parsed.start.getTime() < now.getTime() - WEEK;
  const fast = parsed.rules.some((r) => (r.freq === Frequency.MINUTELY || r.freq === Frequency.HOURLY) && !r.count);
  if (!old || !fast) return parsed.start;
  const weekAgo = utcToWall(new Date(now.getTime() - WEEK), parsed.zone);
  const s = parsed.start;
  return new Date(Date.UTC(weekAgo.getUTCFullYear(), weekAgo.getUTCMonth(), weekAgo.getUTCDate(), s.getUTCHours(), s.getUTCMinutes(), s.getUTCSeconds()));
}

/** Occurrences a rule may step through in one computation: a rule that would need more is treated as ended there. */
const MAX_STEPS = 100_000;
const DAY = 86_400_000;
/** How many occurrences beyond those asked are read before EXRULEs remove theirs. */
const EXCLUSION_SLACK = 1_000;

/**
 * Wall-clock occurrences of each RRULE from `from` on (at most `count` of each), less those an
 * EXRULE names; `cut` when a rule needed more than MAX_STEPS steps.
 */
function wallTimes(parsed: ParsedRrule, start: Date, from: number, count: number): Date[] & { cut?: boolean } {
  const walls = new Map<number, Date>();
  let cut = false;
  for (const rule of rulesOf(parsed.rules, start)) {
    let steps = 0;
    let taken = 0;
    rule.all((wall: Date) => {
      if (wall.getTime() >= from) {
        walls.set(wall.getTime(), wall);
        taken++;
      }
      if (++steps >= MAX_STEPS) cut = true;
      return steps < MAX_STEPS && taken < count;
    });
  }
  const sorted = Object.assign([...walls.values()].sort((a, b) => a.getTime() - b.getTime()), { cut });
  if ((!parsed.exrules.length && !parsed.exdates.length) || !sorted.length) return sorted;
  const excluded = new Set<number>(parsed.exdates);
  for (const ex of rulesOf(parsed.exrules, start)) {
    for (const wall of ex.between(sorted[0], sorted[sorted.length - 1], true)) excluded.add(wall.getTime());
  }
  return Object.assign(sorted.filter((wall) => !excluded.has(wall.getTime())), { cut });
}

/**
 * Up to `limit` existing occurrences (as instants) after `after` (or from the start), in order:
 * each RRULE's own, less the times an EXRULE names, merged (rrule's RRuleSet drops occurrences
 * of all but one rule when iterated with a callback, so the set is made here). Wall-clock times
 * more than a day before `after` are before it in every zone, so they are not placed in time.
 */
export function occurrences(parsed: ParsedRrule, options: { after?: Date; limit: number; now?: Date }): Date[] {
  const now = options.now ?? new Date();
  const start = options.after ? effectiveStart(parsed, now) : parsed.start;
  const from = options.after ? utcToWall(options.after, parsed.zone).getTime() - DAY : -Infinity;
  const afterMs = options.after?.getTime() ?? -Infinity;
  const found = new Map<number, Date>();
  const place = (wall: Date) => {
    const instant = wallToUtc(wall, parsed.zone);
    if (!instant || instant.getTime() <= afterMs) return false;
    found.set(instant.getTime(), instant);
    return true;
  };
  if (parsed.exrules.length || parsed.exdates.length) {
    for (const wall of wallTimes(parsed, start, from, options.limit + 2 * 24 * 60 + EXCLUSION_SLACK + parsed.exdates.length)) {
      if (found.size >= options.limit) break;
      place(wall);
    }
  } else {
    // Each rule is walked until it has given `limit` occurrences after `after`.
    for (const rule of rulesOf(parsed.rules, start)) {
      let steps = 0;
      let taken = 0;
      rule.all((wall: Date) => {
        if (wall.getTime() >= from && place(wall)) taken++;
        return ++steps < MAX_STEPS && taken < options.limit;
      });
    }
  }
  return [...found.values()].sort((a, b) => a.getTime() - b.getTime()).slice(0, options.limit);
}

/** The last occurrence when every rule ends (COUNT or UNTIL); null otherwise or when there is none. */
function lastOccurrence(parsed: ParsedRrule): Date | null {
  if (!parsed.rules.every((r) => r.count || r.until)) return null;
  const walls = wallTimes(parsed, parsed.start, -Infinity, MAX_STEPS);
  // A rule too long to walk to its end (minutely for years) shows no end, as one without UNTIL.
  if (walls.cut) return null;
  for (let i = walls.length - 1; i >= 0; i--) {
    const instant = wallToUtc(walls[i], parsed.zone);
    if (instant) return instant;
  }
  return null;
}

export interface ComputedSchedule {
  dtstart: Date | null;
  dtend: Date | null;
  next_run: Date | null;
}

/** The stored computed fields: first and last occurrence, and the next one after now while enabled. */
export function computeSchedule(parsed: ParsedRrule, enabled: boolean, now = new Date()): ComputedSchedule {
  return {
    dtstart: occurrences(parsed, { limit: 1 })[0] ?? null,
    dtend: lastOccurrence(parsed),
    next_run: enabled ? (occurrences(parsed, { after: now, limit: 1, now })[0] ?? null) : null,
  };
}

/** The next occurrence strictly after `after` (the scheduler's next slot), or null when the rule has ended. */
export const nextOccurrence = (parsed: ParsedRrule, after: Date, now = new Date()): Date | null =>
  occurrences(parsed, { after, limit: 1, now })[0] ?? null;

/** The UNTIL of the first rule that has one, as local wall-clock text of DTSTART's zone; '' when none (AWX's until). */
export function untilText(parsed: ParsedRrule): string {
  const until = [...parsed.rules, ...parsed.exrules].find((r) => r.until)?.until;
  return until ? floatingIso(until) : '';
}

/** POST /schedules/preview/: the next 10 occurrences, local (with offset) and UTC. */
export function preview(parsed: ParsedRrule, now = new Date()): { local: string[]; utc: string[] } {
  const next = occurrences(parsed, { after: now, limit: 10, now });
  return { local: next.map((d) => zonedIso(d, parsed.zone)), utc: next.map((d) => zonedIso(d, 'UTC')) };
}
