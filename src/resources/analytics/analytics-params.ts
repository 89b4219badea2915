/**
 * The query parameters of /api/v2/svc_analytics/ (docs/analytics.md): the period a question
 * covers, the size of its date buckets, how many rows a ranking answers and the manual multiplier
 * of time_savings. Each is checked here and refused with a message naming what is allowed.
 */
import { badRequest } from '../../api/errors.ts';

export const PERIOD_DAYS = { week: 7, two_weeks: 14, month: 30, quarter: 90, year: 365 } as const;
export type Period = keyof typeof PERIOD_DAYS;
export const GRANULARITIES = ['day', 'week', 'month'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;
export const DEFAULT_MANUAL_MULTIPLIER = 10;
export const MAX_MANUAL_MULTIPLIER = 1000;

const DAY_MS = 86_400_000;

export type Query = Record<string, unknown>;

/** A parameter's single value: a repeated parameter is refused rather than one copy picked. */
function single(query: Query, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw badRequest(`${name}: give one value.`);
  return value;
}

export function period(query: Query): Period {
  const value = single(query, 'period') ?? 'month';
  if (!Object.hasOwn(PERIOD_DAYS, value)) throw badRequest(`period: "${value}" is not one of ${Object.keys(PERIOD_DAYS).join(', ')}.`);
  return value as Period;
}

export function granularity(query: Query, fallback: Granularity): Granularity {
  const value = single(query, 'granularity') ?? fallback;
  if (!(GRANULARITIES as readonly string[]).includes(value)) throw badRequest(`granularity: "${value}" is not one of ${GRANULARITIES.join(', ')}.`);
  return value as Granularity;
}

export function limit(query: Query): number {
  const value = single(query, 'limit');
  if (value === undefined) return DEFAULT_LIMIT;
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > MAX_LIMIT) throw badRequest(`limit: give a whole number from 1 to ${MAX_LIMIT}.`);
  return Number(value);
}

export function manualMultiplier(query: Query): number {
  const value = single(query, 'manual_multiplier');
  if (value === undefined) return DEFAULT_MANUAL_MULTIPLIER;
  const n = /^\d{1,4}(\.\d{1,4})?$/.test(value) ? Number(value) : NaN;
  if (!(n > 0 && n <= MAX_MANUAL_MULTIPLIER)) throw badRequest(`manual_multiplier: give a number above 0 and at most ${MAX_MANUAL_MULTIPLIER}.`);
  return n;
}

/** The start of a UTC day. */
export const dayStart = (at: Date): Date => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);

/** A period covers its number of days up to now, today included: from 00:00 UTC of its first day. */
export function periodStart(p: Period, now: Date): Date {
  return new Date(dayStart(now).getTime() - (PERIOD_DAYS[p] - 1) * DAY_MS);
}

/** The start of the bucket holding `at`, as PostgreSQL's date_trunc in UTC: weeks begin on Monday. */
export function bucketStart(at: Date, g: Granularity): Date {
  const day = dayStart(at);
  if (g === 'day') return day;
  if (g === 'week') return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS);
  return new Date(Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), 1));
}

function nextBucket(at: Date, g: Granularity): Date {
  if (g === 'day') return new Date(at.getTime() + DAY_MS);
  if (g === 'week') return new Date(at.getTime() + 7 * DAY_MS);
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** Every bucket from the one holding `from` to the one holding `to`, as ISO dates (YYYY-MM-DD). */
export function bucketDates(from: Date, to: Date, g: Granularity): string[] {
  const dates: string[] = [];
  for (let at = bucketStart(from, g); at <= to; at = nextBucket(at, g)) dates.push(at.toISOString().slice(0, 10));
  return dates;
}
