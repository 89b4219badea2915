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

/**
 * Up to `limit` existing occurrences (as instants) after `after` (or from the start), in order:
 * each RRULE's own, less the times an EXRULE names, merged (rrule's RRuleSet drops occurrences
 * of all but one rule when iterated with a callback, so the set is made here).
 */
export function occurrences(parsed: ParsedRrule, options: { after?: Date; limit: number; now?: Date }): Date[] {
  const now = options.now ?? new Date();
  const start = options.after ? effectiveStart(parsed, now) : parsed.start;
  const exrules = rulesOf(parsed.exrules, start);
  const excluded = (wall: Date) => exrules.some((ex) => ex.between(wall, wall, true).length > 0);
  const afterMs = options.after?.getTime() ?? -Infinity;
  const found = new Map<number, Date>();
  for (const rule of rulesOf(parsed.rules, start)) {
    let taken = 0;
    rule.all((wall: Date) => {
      const instant = wallToUtc(wall, parsed.zone);
      if (instant && instant.getTime() > afterMs && !excluded(wall)) {
        found.set(instant.getTime(), instant);
        taken++;
      }
      return taken < options.limit;
    });
  }
  return [...found.values()].sort((a, b) => a.getTime() - b.getTime()).slice(0, options.limit);
}

/** The last occurrence when every rule ends (COUNT or UNTIL); null otherwise or when there is none. */
function lastOccurrence(parsed: ParsedRrule): Date | null {
  if (!parsed.rules.every((r) => r.count || r.until)) return null;
  const all = occurrences(parsed, { limit: Number.MAX_SAFE_INTEGER });
  return all.length ? all[all.length - 1] : null;
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
