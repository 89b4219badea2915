import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ExpansionBudget, RuleBudgetExceeded } from '../../src/resources/schedules/rrule-budget.ts';
import { computeSchedule, nextOccurrence, UnusableRule } from '../../src/resources/schedules/rrule-schedule.ts';
import { parseRrule, type ParsedRrule } from '../../src/resources/schedules/rrule-text.ts';

function parsed(text: string): ParsedRrule {
  const result = parseRrule(text);
  if (!('rrule' in result)) assert.fail(`${text}: ${result.problems.join(' ')}`);
  return result.rrule;
}

const problems = (text: string) => {
  const result = parseRrule(text);
  return 'problems' in result ? result.problems : [];
};

describe('schedule rules (src/resources/schedules/rrule-*.ts)', () => {
  it('refuse malformed rules with AWX’s messages', () => {
    assert.deepEqual(problems('RRULE:FREQ=DAILY;INTERVAL=1'), ['Valid DTSTART required in rrule. Value should start with: DTSTART:YYYYMMDDTHHMMSSZ']);
    assert.deepEqual(problems('DTSTART:20300101T000000Z'), ['One or more rule required in rrule.']);
    assert.deepEqual(problems('DTSTART:20300101T000000Z RRULE:FREQ=DAILY RDATE:20300102T000000Z'), ['RDATE not allowed in rrule.']);
    assert.ok(problems('DTSTART:20300101T000000 RRULE:FREQ=DAILY').includes('DTSTART cannot be a naive datetime.  Specify ;TZINFO= or YYYYMMDDTHHMMSSZZ.'));
  });

  it('compute the first and next occurrences of a rule', () => {
    const now = new Date('2030-01-01T10:30:00Z');
    const rule = parsed('DTSTART:20300101T090000Z RRULE:FREQ=HOURLY;INTERVAL=1');
    const fields = computeSchedule(rule, true, now);
    assert.equal(new Date(fields.dtstart!).toISOString(), '2030-01-01T09:00:00.000Z');
    assert.equal(new Date(fields.next_run!).toISOString(), '2030-01-01T11:00:00.000Z');
    assert.equal(nextOccurrence(rule, new Date('2030-01-01T11:00:00Z'), now)?.toISOString(), '2030-01-01T12:00:00.000Z');
    assert.equal(computeSchedule(rule, false, now).next_run, null, 'a disabled schedule has no next run');
  });

  it('stop, within the step budget, a rule that never occurs instead of walking to the year 9999', () => {
    const started = Date.now();
    for (const text of [
      'DTSTART:20250101T000000Z RRULE:FREQ=DAILY;INTERVAL=1;BYYEARDAY=366;BYMONTH=2',
      'DTSTART:20250101T000000Z RRULE:FREQ=HOURLY;INTERVAL=6;BYHOUR=1',
    ]) assert.throws(() => computeSchedule(parsed(text), true, new Date('2026-01-01T00:00:00Z')), UnusableRule, text);
    assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
  });

  it('charge one budget for every walk of a computation', () => {
    const budget = new ExpansionBudget(10);
    budget.charge(6);
    budget.charge(4);
    assert.throws(() => budget.charge(), RuleBudgetExceeded);
  });
});
