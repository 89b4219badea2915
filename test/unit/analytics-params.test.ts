import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { bucketDates, bucketStart, granularity, limit, manualMultiplier, period, periodStart } from '../../src/resources/analytics/analytics-params.ts';

describe('analytics parameters', () => {
  it('a period of N days starts at 00:00 UTC of the day N - 1 days before today', () => {
    const now = new Date('2026-03-02T08:30:00Z');
    assert.equal(periodStart('week', now).toISOString(), '2026-02-24T00:00:00.000Z');
    assert.equal(periodStart('month', now).toISOString(), '2026-02-01T00:00:00.000Z');
    assert.equal(periodStart('year', now).toISOString(), '2025-03-03T00:00:00.000Z');
  });

  it('buckets start on the day, the Monday or the first of the month, in UTC', () => {
    assert.equal(bucketStart(new Date('2026-03-01T23:59:59Z'), 'week').toISOString(), '2026-02-23T00:00:00.000Z');
    assert.equal(bucketStart(new Date('2026-03-02T00:00:00Z'), 'week').toISOString(), '2026-03-02T00:00:00.000Z');
    assert.equal(bucketStart(new Date('2026-03-31T12:00:00Z'), 'month').toISOString(), '2026-03-01T00:00:00.000Z');
    assert.deepEqual(bucketDates(new Date('2026-01-30T00:00:00Z'), new Date('2026-03-02T08:00:00Z'), 'month'), ['2026-01-01', '2026-02-01', '2026-03-01']);
    assert.deepEqual(bucketDates(new Date('2026-02-24T00:00:00Z'), new Date('2026-03-02T08:00:00Z'), 'week'), ['2026-02-23', '2026-03-02']);
    assert.equal(bucketDates(new Date('2025-12-31T00:00:00Z'), new Date('2026-01-01T01:00:00Z'), 'day').join(), '2025-12-31,2026-01-01');
  });

  it('defaults, and refusals with a message', () => {
    assert.deepEqual([period({}), granularity({}, 'day'), limit({}), manualMultiplier({})], ['month', 'day', 10, 10]);
    assert.deepEqual([limit({ limit: '100' }), manualMultiplier({ manual_multiplier: '0.5' })], [100, 0.5]);
    for (const [fn, query] of [[period, { period: 'toString' }], [period, { period: ['week', 'month'] }], [limit, { limit: '1.5' }], [limit, { limit: '101' }], [manualMultiplier, { manual_multiplier: 'Infinity' }], [manualMultiplier, { manual_multiplier: '0.0000' }]] as const) {
      assert.throws(() => (fn as (q: object) => unknown)(query), (error: { statusCode?: number; status?: number }) => (error.statusCode ?? error.status) === 400, JSON.stringify(query));
    }
  });
});
