/**
 * What a parsed rrule means in time: its occurrences as instants, the schedule's computed fields
 * (dtstart, dtend, next_run, timezone, until) and the preview. Rules are evaluated over wall-clock
 * times in the DTSTART zone, so 09:00 stays 09:00 across DST changes; a wall-clock time a DST
 * change skips has no occurrence (as AWX skips "imaginary" times).
 */
import { ExpansionBudget, meteredRule, RuleBudgetExceeded } from './rrule-budget.ts';
import { Frequency, type Options } from './rrule-lib.ts';
import type { ParsedRrule } from './rrule-text.ts';
import { floatingIso, utcToWall, wallToUtc, zonedIso } from './zone-time.ts';

const DAY = 86_400_000;
const WEEK = 7 * DAY;
/** How far ahead occurrences are looked for: a rule with none before then is refused on save. */
export const RRULE_HORIZON_YEARS = 5;
/** Most occurrences of each rule read before EXRULEs remove theirs, beyond those asked and the EXDATEs. */
const EXCLUSION_SLACK = 2 * 24 * 60 + 1_000;

/** A rule that cannot be saved or previewed: it has no occurrence in reach, or finding them costs too much. */
export class UnusableRule extends Error {}

/**
 * Minutely and hourly rules without COUNT that started more than a week ago are evaluated from a
 * week ago at the same time of day (AWX's fast forward), so old schedules stay cheap.
 */
function awxFastForward(parsed: ParsedRrule, now: Date): Date | null {
  const old = now.getTime() - utcToWall(now, parsed.zone).getTime() + parsed.start.getTime() < now.getTime() - WEEK;
  const fast = parsed.rules.some((r) => (r.freq === Frequency.MINUTELY || r.freq === Frequency.HOURLY) && !r.count);
  if (!old || !fast) return null;
  const weekAgo = utcToWall(new Date(now.getTime() - WEEK), parsed.zone);
  const s = parsed.start;
  return new Date(Date.UTC(weekAgo.getUTCFullYear(), weekAgo.getUTCMonth(), weekAgo.getUTCDate(), s.getUTCHours(), s.getUTCMinutes(), s.getUTCSeconds()));
}

/** The length of one period of each frequency in floating time (months and years at their longest). */
const PERIOD_MS: Record<number, number> = {
  [Frequency.YEARLY]: 366 * DAY, [Frequency.MONTHLY]: 31 * DAY, [Frequency.WEEKLY]: WEEK, [Frequency.DAILY]: DAY,
  [Frequency.HOURLY]: 3_600_000, [Frequency.MINUTELY]: 60_000,
};

/**
 * A rule without COUNT walked from a later start on its own grid of periods (a whole number of
 * INTERVALs after DTSTART, at least one period before `from`), so that a rule started years ago
 * does not walk every period since. Its occurrences from `from` on are the same: a walk visits
 * every time of the grid that BYxxx lets through, BYxxx parts are calendar values, and the parts
 * the rrule package would take from DTSTART (the day of the month, the month, the weekday) are
 * written into the rule first. Floating times have no DST, so days and hours are fixed lengths.
 */
function fastForwarded(rule: Partial<Options>, start: Date, from: number): { rule: Partial<Options>; start: Date } {
  const interval = rule.interval ?? 1;
  if (rule.count || !Number.isFinite(from) || from <= start.getTime() || interval < 1 || rule.freq === undefined) return { rule, start };
  if (rule.freq !== Frequency.MONTHLY && rule.freq !== Frequency.YEARLY) {
    const period = interval * (PERIOD_MS[rule.freq] ?? Infinity);
    const periods = Math.floor((from - start.getTime()) / period) - 1;
    if (!(periods >= 1)) return { rule, start };
    const weekday = rule.freq === Frequency.WEEKLY && !dayParts(rule) ? { byweekday: [(start.getUTCDay() + 6) % 7] } : {};
    return { rule: { ...rule, ...weekday }, start: new Date(start.getTime() + periods * period) };
  }
  const fromDate = new Date(from);
  const months = rule.freq === Frequency.MONTHLY ? interval : 12 * interval;
  const elapsed = (fromDate.getUTCFullYear() - start.getUTCFullYear()) * 12 + fromDate.getUTCMonth() - start.getUTCMonth();
  const periods = Math.floor(elapsed / months) - 1;
  if (periods < 1) return { rule, start };
  const pinned = dayParts(rule) ? {} : { bymonthday: [start.getUTCDate()], ...(rule.freq === Frequency.YEARLY && !rule.bymonth ? { bymonth: [start.getUTCMonth() + 1] } : {}) };
  const later = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + periods * months, 1, start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds()));
  return { rule: { ...rule, ...pinned }, start: later };
}

/** Whether the rule names its days itself; without, the rrule package takes them from DTSTART. */
const dayParts = (rule: Partial<Options>) =>
  [rule.byweekno, rule.byyearday, rule.bymonthday, rule.byweekday, rule.byeaster].some((part) => part !== undefined && part !== null && !(Array.isArray(part) && !part.length));

/** The rules of a list, each walked from `start` or later (see fastForwarded), charging `budget`. */
const rulesOf = (list: ParsedRrule['rules'], start: Date, from: number, budget: ExpansionBudget) =>
  list.map((options) => {
    const walk = fastForwarded(options, start, from);
    return meteredRule({ ...walk.rule, dtstart: walk.start }, budget);
  });

/** The wall-clock time RRULE_HORIZON_YEARS after the later of now and DTSTART. */
function horizonOf(parsed: ParsedRrule, now: Date): number {
  const base = Math.max(utcToWall(now, parsed.zone).getTime(), parsed.start.getTime());
  const date = new Date(base);
  date.setUTCFullYear(date.getUTCFullYear() + RRULE_HORIZON_YEARS);
  return date.getTime();
}

/**
 * Wall-clock occurrences of each RRULE from `from` to `until` (at most `count` of each), less
 * those an EXRULE names; `cut` when a rule had more than `count`.
 */
function wallTimes(parsed: ParsedRrule, start: Date, from: number, until: number, count: number, budget: ExpansionBudget): Date[] & { cut?: boolean } {
  const walls = new Map<number, Date>();
  let cut = false;
  for (const rule of rulesOf(parsed.rules, start, from, budget)) {
    let taken = 0;
    rule.all((wall: Date) => {
      budget.charge();
      if (wall.getTime() > until) return false;
      if (taken >= count) {
        cut = true;
        return false;
      }
      if (wall.getTime() >= from) {
        walls.set(wall.getTime(), wall);
        taken++;
      }
      return true;
    });
  }
  const sorted = Object.assign([...walls.values()].sort((a, b) => a.getTime() - b.getTime()), { cut });
  if ((!parsed.exrules.length && !parsed.exdates.length) || !sorted.length) return sorted;
  const excluded = new Set<number>(parsed.exdates);
  for (const ex of rulesOf(parsed.exrules, start, sorted[0].getTime() - DAY, budget)) {
    ex.between(sorted[0], sorted[sorted.length - 1], true, (wall: Date) => {
      budget.charge();
      excluded.add(wall.getTime());
      return true;
    });
  }
  return Object.assign(sorted.filter((wall) => !excluded.has(wall.getTime())), { cut });
}

/**
 * Up to `limit` existing occurrences (as instants) after `after` (or from the start) and before the
 * horizon, in order: each RRULE's own, less the times an EXRULE names, merged (rrule's RRuleSet
 * drops occurrences of all but one rule when iterated with a callback, so the set is made here).
 * Wall-clock times more than a day before `after` are before it in every zone, so they are not
 * placed in time. Throws RuleBudgetExceeded when the walk needs more than its budget.
 */
export function occurrences(parsed: ParsedRrule, options: { after?: Date; limit: number; now?: Date }): Date[] {
  const now = options.now ?? new Date();
  const budget = new ExpansionBudget();
  const start = (options.after && awxFastForward(parsed, now)) || parsed.start;
  const from = options.after ? utcToWall(options.after, parsed.zone).getTime() - DAY : -Infinity;
  const until = horizonOf(parsed, now);
  const afterMs = options.after?.getTime() ?? -Infinity;
  const found = new Map<number, Date>();
  const place = (wall: Date) => {
    const instant = wallToUtc(wall, parsed.zone);
    if (!instant || instant.getTime() <= afterMs) return false;
    found.set(instant.getTime(), instant);
    return true;
  };
  if (parsed.exrules.length || parsed.exdates.length) {
    // Read a few more than asked, then more (up to the slack) while exclusions leave too few.
    const most = options.limit + EXCLUSION_SLACK + parsed.exdates.length;
    for (let count = Math.min(most, 2 * options.limit + parsed.exdates.length); ; count = Math.min(most, 4 * count)) {
      const walls = wallTimes(parsed, start, from, until, count, budget);
      found.clear();
      for (const wall of walls) {
        if (found.size >= options.limit) break;
        place(wall);
      }
      if (found.size >= options.limit || !walls.cut || count === most) break;
    }
  } else {
    // Each rule is walked until it has given `limit` occurrences after `after`.
    for (const rule of rulesOf(parsed.rules, start, from, budget)) {
      let taken = 0;
      rule.all((wall: Date) => {
        budget.charge();
        if (wall.getTime() > until) return false;
        if (wall.getTime() >= from && place(wall)) taken++;
        return taken < options.limit;
      });
    }
  }
  return [...found.values()].sort((a, b) => a.getTime() - b.getTime()).slice(0, options.limit);
}

/**
 * The last occurrence when every rule ends (COUNT or UNTIL); null otherwise, when there is none, or
 * when the rule is too long to walk to its end within a budget: it then shows no end, as one
 * without UNTIL. Rules that all end by UNTIL are first walked over their last two periods only.
 */
function lastOccurrence(parsed: ParsedRrule): Date | null {
  if (!parsed.rules.every((r) => r.count || r.until)) return null;
  const walk = (from: number) => wallTimes(parsed, parsed.start, from, Infinity, Infinity, new ExpansionBudget());
  let walls: Date[] = [];
  try {
    if (!parsed.rules.some((r) => r.count)) {
      const ends = Math.max(...parsed.rules.map((r) => r.until!.getTime()));
      const window = Math.max(...parsed.rules.map((r) => 2 * (r.interval ?? 1) * (PERIOD_MS[r.freq!] ?? DAY)));
      walls = walk(ends - window);
    }
    if (!walls.length) walls = walk(-Infinity);
  } catch (err) {
    if (err instanceof RuleBudgetExceeded) return null;
    throw err;
  }
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

/** What `expand` answers, with a walk past its budget turned into an UnusableRule that says so. */
function expanded<T>(expand: () => T): T {
  try {
    return expand();
  } catch (err) {
    if (!(err instanceof RuleBudgetExceeded)) throw err;
    throw new UnusableRule(
      `Finding the occurrences of this rule takes too much work (${err.message}): its BYxxx parts match too rarely or never. Simplify the rule.`,
    );
  }
}

/** The first occurrence; an UnusableRule when there is none before the horizon. */
function firstOccurrence(parsed: ParsedRrule, now: Date): Date {
  const [first] = expanded(() => occurrences(parsed, { limit: 1, now }));
  if (!first) {
    const from = parsed.start.getTime() > utcToWall(now, parsed.zone).getTime() ? 'its DTSTART' : 'now';
    throw new UnusableRule(`The rule has no occurrence within ${RRULE_HORIZON_YEARS} years of ${from}: a schedule must occur at least once in that time.`);
  }
  return first;
}

/**
 * The stored computed fields: first and last occurrence, and the next one after now while enabled.
 * An UnusableRule when the rule has no occurrence before the horizon or costs too much to expand.
 */
export function computeSchedule(parsed: ParsedRrule, enabled: boolean, now = new Date()): ComputedSchedule {
  return {
    dtstart: firstOccurrence(parsed, now),
    dtend: lastOccurrence(parsed),
    next_run: enabled ? nextOccurrence(parsed, now, now) : null,
  };
}

/**
 * The next occurrence strictly after `after` (the scheduler's next slot), or null when the rule has
 * ended or has none before the horizon; an UnusableRule when it costs too much to find.
 */
export const nextOccurrence = (parsed: ParsedRrule, after: Date, now = new Date()): Date | null =>
  expanded(() => occurrences(parsed, { after, limit: 1, now }))[0] ?? null;

/** The UNTIL of the first rule that has one, as local wall-clock text of DTSTART's zone; '' when none (AWX's until). */
export function untilText(parsed: ParsedRrule): string {
  const until = [...parsed.rules, ...parsed.exrules].find((r) => r.until)?.until;
  return until ? floatingIso(until) : '';
}

/** POST /schedules/preview/: the next 10 occurrences, local (with offset) and UTC; an UnusableRule as computeSchedule. */
export function preview(parsed: ParsedRrule, now = new Date()): { local: string[]; utc: string[] } {
  const next = expanded(() => occurrences(parsed, { after: now, limit: 10, now }));
  // A rule that has ended previews nothing; one that never occurs is refused.
  if (!next.length) firstOccurrence(parsed, now);
  return { local: next.map((d) => zonedIso(d, parsed.zone)), utc: next.map((d) => zonedIso(d, 'UTC')) };
}
