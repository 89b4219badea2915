/** Schemas of the analytics endpoints (docs/analytics.md): what the console and other clients read. */
import { Type, type TSchema } from 'typebox';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import type { MethodSchema } from '../../api/route-schemas.ts';
import { GRANULARITIES, MAX_LIMIT, MAX_MANUAL_MULTIPLIER, PERIOD_DAYS } from './analytics-params.ts';

const Rate = Type.Union([Type.Number(), Type.Null()], { description: 'A percentage (0 to 100), two decimals; null when nothing was counted.' });
const Seconds = Type.Union([Type.Number(), Type.Null()], { description: 'Average run time in seconds, two decimals; null when nothing was counted.' });
const BucketDate = Type.String({ description: 'The first day of the bucket, an ISO date (UTC); weeks begin on Monday.' });

const oneOf = (values: readonly string[], description: string) => Type.Optional(Type.Union(values.map((v) => Type.Literal(v)), { description }));
const Period = oneOf(Object.keys(PERIOD_DAYS), 'The period: month when absent.');
const Granularity = oneOf(GRANULARITIES, 'The buckets: day when absent.');
const Limit = Type.Optional(Type.String({ description: `How many rows, 1 to ${MAX_LIMIT}; 10 when absent.` }));
const Multiplier = Type.Optional(Type.String({ description: `How many times longer the same work takes by hand: above 0, at most ${MAX_MANUAL_MULTIPLIER}; 10 when absent.` }));

const get = (summary: string, querystring: Record<string, TSchema>, answer: TSchema): Record<string, MethodSchema> => ({
  GET: { summary, querystring: Type.Object(querystring), response: { 200: answer } },
  OPTIONS: OPTIONS_RESPONSE,
});

export const rootSchemas = get('The analytics endpoints', {}, Type.Record(Type.String(), Type.String()));

export const jobTrendsSchemas = get('Finished jobs per day, week or month', { period: Period, granularity: Granularity }, Type.Array(Type.Object({
  date: BucketDate,
  job_count: Type.Integer(),
  avg_duration: Seconds,
  successful: Type.Integer(),
  failed: Type.Integer(),
})));

export const successRateSchemas = get('Finished jobs by status per day (or week, month), with the share successful', { period: Period, granularity: Granularity }, Type.Array(Type.Object({
  date: BucketDate,
  total: Type.Integer(),
  successful: Type.Integer(),
  failed: Type.Integer(),
  error: Type.Integer(),
  canceled: Type.Integer(),
  success_rate: Rate,
})));

export const topTemplatesSchemas = get('The job templates run most', { period: Period, limit: Limit }, Type.Array(Type.Object({
  template_id: Type.Integer(),
  template_name: Type.String(),
  run_count: Type.Integer(),
  avg_duration: Seconds,
  success_rate: Rate,
})));

export const busiestHostsSchemas = get('The hosts most jobs ran on, with their task results', { period: Period, limit: Limit }, Type.Array(Type.Object({
  host_name: Type.String(),
  job_count: Type.Integer(),
  total_ok: Type.Integer(),
  total_changed: Type.Integer(),
  total_failures: Type.Integer(),
  total_skipped: Type.Integer(),
})));

const Coverage = {
  total_hosts: Type.Integer({ description: 'Hosts the caller may see.' }),
  automated_hosts: Type.Integer({ description: 'Of those, hosts a counted job ran on in the period.' }),
  coverage_pct: Rate,
};
export const hostCoverageSchemas = get('The share of hosts automation reached', { period: Period }, Type.Object({
  ...Coverage,
  by_inventory: Type.Array(Type.Object({ inventory_id: Type.Integer(), inventory_name: Type.String(), ...Coverage })),
}));

export const failureAnalysisSchemas = get('The job templates and hosts failing most', { period: Period, limit: Limit }, Type.Object({
  by_template: Type.Array(Type.Object({
    template_id: Type.Integer(),
    template_name: Type.String(),
    run_count: Type.Integer(),
    failed_count: Type.Integer({ description: 'Jobs that failed or ended in error.' }),
    failure_rate: Rate,
  })),
  by_host: Type.Array(Type.Object({
    host_name: Type.String(),
    job_count: Type.Integer(),
    failed_count: Type.Integer({ description: 'Jobs with a failed or unreachable task on the host.' }),
    failure_rate: Rate,
  })),
}));

const Hours = (description: string) => Type.Number({ description: `${description}, two decimals.` });
export const timeSavingsSchemas = get('The time successful jobs saved against doing their work by hand', { period: Period, manual_multiplier: Multiplier }, Type.Object({
  period: Type.String(),
  manual_multiplier: Type.Number(),
  successful_jobs: Type.Integer(),
  automation_hours: Hours('T: the run time of the successful jobs, in hours'),
  manual_hours: Hours('T × manual_multiplier, in hours'),
  saved_hours: Hours('manual_hours − automation_hours'),
  avg_automation_minutes: Hours('automation per successful job, in minutes (0 without one)'),
  avg_saved_minutes: Hours('time saved per successful job, in minutes (0 without one)'),
  saved_hours_per_day: Hours('saved_hours over the days of the period'),
}));
