/**
 * The work one expansion of a rule may do. The rrule package walks a rule period by period (a day
 * for DAILY, a year for YEARLY) until it has found what was asked, so a rule that never occurs
 * (BYYEARDAY=366;BYMONTH=2) is walked to the year 9999, and some never leave their first period
 * (FREQ=HOURLY;INTERVAL=6;BYHOUR=1 loops forever looking for 01:00). Neither UNTIL nor between()
 * stops that: the package only compares a time it found with them. So the work is counted where the
 * package does it: every read of the rule's options and of their lists (each period reads them,
 * and so does each day it tests against BYxxx, and each hour or minute it steps through) is a step,
 * and a period also costs the day set the package builds for it. Past the budget the walk is
 * stopped by an exception. Counting reads rather than time answers the same for a rule on every
 * machine and at every load.
 */
import { RRule, type Options } from './rrule-lib.ts';

/** Steps one computation (first occurrence, next occurrences, last occurrence) may take. */
export const RRULE_STEP_BUDGET = 200_000;
/**
 * What one period costs on top of its reads: the package rebuilds a day set (up to 366 entries)
 * per period, which reads no option. Makes a step cost about the same time whatever the frequency.
 */
const PERIOD_STEPS = 40;

/** Thrown out of the rrule package's walk when a computation has used its steps. */
export class RuleBudgetExceeded extends Error {
  constructor() {
    super(`finding this rule's occurrences takes more than ${RRULE_STEP_BUDGET.toLocaleString('en')} steps`);
  }
}

/** The steps left to one computation, shared by the rules it walks. */
export class ExpansionBudget {
  private used = 0;
  constructor(private readonly limit = RRULE_STEP_BUDGET) {}

  charge(steps = 1): void {
    this.used += steps;
    if (this.used > this.limit) throw new RuleBudgetExceeded();
  }
}

/** A list of the rule's values whose membership tests (how the package tests a day or an hour against BYxxx) are charged. */
function meteredList(values: unknown[], budget: ExpansionBudget): unknown[] {
  const list = [...values];
  Object.defineProperty(list, 'indexOf', {
    value: (value: unknown, from?: number) => {
      budget.charge();
      return values.indexOf(value, from);
    },
  });
  return list;
}

/** A rule whose walk charges `budget` for its work (see above). */
export function meteredRule(options: Partial<Options>, budget: ExpansionBudget): InstanceType<typeof RRule> {
  const rule = new RRule(options);
  const parsed = rule.options as unknown as Record<string, unknown>;
  const metered: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    const shown = Array.isArray(value) ? meteredList(value, budget) : value;
    // The package reads interval once per period where it steps to the next one.
    const steps = key === 'interval' ? PERIOD_STEPS : 1;
    Object.defineProperty(metered, key, {
      enumerable: true,
      get() {
        budget.charge(steps);
        return shown;
      },
    });
  }
  rule.options = metered as unknown as typeof rule.options;
  return rule;
}
