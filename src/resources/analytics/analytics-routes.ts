/**
 * /api/v2/svc_analytics/ and its seven questions about the jobs the caller may see
 * (docs/analytics.md): each computed in SQL by analytics-queries.ts over a RunScope.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../api/context.ts';
import { viewOptions } from '../../api/options.ts';
import { AUTHENTICATED } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import type { MethodSchema } from '../../api/route-schemas.ts';
import { bucketDates, granularity, limit, manualMultiplier, period, periodStart, PERIOD_DAYS, type Granularity, type Query } from './analytics-params.ts';
import { coverageByInventory, runsByBucket, runsByHost, runsByTemplate, successfulRunTime, type TrendRow } from './analytics-queries.ts';
import { budgetedAsk, hostScope, runScope } from './analytics-scope.ts';
import * as schemas from './analytics-schemas.ts';

export const ANALYTICS_URL = '/api/v2/svc_analytics/';

const round2 = (n: number) => Math.round(n * 100) / 100;
const percent = (part: number, whole: number) => (whole ? round2((100 * part) / whole) : null);

/** The request's period and the runs it counts; the request's other parameters are checked before. */
async function scopeOf(services: Services, request: FastifyRequest) {
  const p = period(request.query as Query);
  const now = new Date();
  const start = periodStart(p, now);
  return { period: p, start, now, scope: await runScope(services, request.ctx, start) };
}

/** Every bucket of the period, those without runs included. */
async function buckets(services: Services, request: FastifyRequest, fallback: Granularity): Promise<TrendRow[]> {
  const g = granularity(request.query as Query, fallback);
  const { start, now, scope } = await scopeOf(services, request);
  const rows = new Map((await runsByBucket(budgetedAsk(services), scope, g)).map((row) => [row.date, row]));
  return bucketDates(start, now, g).map((date) => rows.get(date) ?? { date, job_count: 0, avg_duration: null, successful: 0, failed: 0, error: 0, canceled: 0 });
}

type Answer = (services: Services, request: FastifyRequest) => Promise<unknown>;

const QUESTIONS: Record<string, { name: string; description: string; schemas: Record<string, MethodSchema>; answer: Answer }> = {
  job_trends: {
    name: 'Job Trends',
    description: 'Finished jobs per bucket (granularity day, week or month; day when absent): count, average duration, successful and failed.',
    schemas: schemas.jobTrendsSchemas,
    answer: async (services, request) =>
      (await buckets(services, request, 'day')).map(({ date, job_count, avg_duration, successful, failed }) => ({ date, job_count, avg_duration, successful, failed })),
  },
  success_rate: {
    name: 'Success Rate',
    description: 'Finished jobs per bucket by status (granularity day, week or month; day when absent), with the percentage successful.',
    schemas: schemas.successRateSchemas,
    answer: async (services, request) =>
      (await buckets(services, request, 'day')).map(({ date, job_count, successful, failed, error, canceled }) => ({
        date, total: job_count, successful, failed, error, canceled, success_rate: percent(successful, job_count),
      })),
  },
  top_templates: {
    name: 'Top Templates',
    description: 'The job templates with the most finished jobs in the period (limit, 10 when absent).',
    schemas: schemas.topTemplatesSchemas,
    answer: async (services, request) => {
      const n = limit(request.query as Query);
      const { scope } = await scopeOf(services, request);
      const rows = await runsByTemplate(budgetedAsk(services), scope, n, 'runs');
      return rows.map(({ template_id, template_name, run_count, avg_duration, success_rate }) => ({ template_id, template_name, run_count, avg_duration, success_rate }));
    },
  },
  busiest_hosts: {
    name: 'Busiest Hosts',
    description: 'The host names most finished jobs of the period ran on, with their task results (limit, 10 when absent).',
    schemas: schemas.busiestHostsSchemas,
    answer: async (services, request) => {
      const n = limit(request.query as Query);
      const { scope } = await scopeOf(services, request);
      const rows = await runsByHost(budgetedAsk(services), scope, n, 'runs');
      return rows.map(({ host_name, job_count, total_ok, total_changed, total_failures, total_skipped }) => ({ host_name, job_count, total_ok, total_changed, total_failures, total_skipped }));
    },
  },
  host_coverage: {
    name: 'Host Coverage',
    description: 'Of the hosts you may see, how many a finished job of the period ran on, in all and per inventory.',
    schemas: schemas.hostCoverageSchemas,
    answer: async (services, request) => {
      const { scope } = await scopeOf(services, request);
      const by_inventory = await coverageByInventory(budgetedAsk(services), scope, (params) => hostScope(services, request.ctx, 'h', params));
      const total_hosts = by_inventory.reduce((sum, row) => sum + row.total_hosts, 0);
      const automated_hosts = by_inventory.reduce((sum, row) => sum + row.automated_hosts, 0);
      return { total_hosts, automated_hosts, coverage_pct: percent(automated_hosts, total_hosts), by_inventory };
    },
  },
  failure_analysis: {
    name: 'Failure Analysis',
    description: 'The job templates and host names with the most failed jobs in the period (limit each, 10 when absent).',
    schemas: schemas.failureAnalysisSchemas,
    answer: async (services, request) => {
      const n = limit(request.query as Query);
      const { scope } = await scopeOf(services, request);
      const [templates, hosts] = [await runsByTemplate(budgetedAsk(services), scope, n, 'failures'), await runsByHost(budgetedAsk(services), scope, n, 'failures')];
      return {
        by_template: templates.map(({ template_id, template_name, run_count, failed_count, failure_rate }) => ({ template_id, template_name, run_count, failed_count, failure_rate })),
        by_host: hosts.map(({ host_name, job_count, failed_count, failure_rate }) => ({ host_name, job_count, failed_count, failure_rate })),
      };
    },
  },
  time_savings: {
    name: 'Time Savings',
    description: 'T, the run time of the successful jobs of the period; by hand T × manual_multiplier (10 when absent); saved, the difference; in hours, with averages.',
    schemas: schemas.timeSavingsSchemas,
    answer: async (services, request) => {
      const multiplier = manualMultiplier(request.query as Query);
      const { period: p, scope } = await scopeOf(services, request);
      const { successful_jobs, seconds } = await successfulRunTime(budgetedAsk(services), scope);
      const saved = seconds * (multiplier - 1);
      return {
        period: p,
        manual_multiplier: multiplier,
        successful_jobs,
        automation_hours: round2(seconds / 3600),
        manual_hours: round2((seconds * multiplier) / 3600),
        saved_hours: round2(saved / 3600),
        avg_automation_minutes: successful_jobs ? round2(seconds / successful_jobs / 60) : 0,
        avg_saved_minutes: successful_jobs ? round2(saved / successful_jobs / 60) : 0,
        saved_hours_per_day: round2(saved / 3600 / PERIOD_DAYS[p]),
      };
    },
  },
};

export function analyticsRoutes(app: FastifyInstance, services: Services): void {
  routeMethods(app, ANALYTICS_URL, AUTHENTICATED, {
    GET: async () => Object.fromEntries(Object.keys(QUESTIONS).map((key) => [key, `${ANALYTICS_URL}${key}/`])),
    OPTIONS: async () => viewOptions('Service Analytics', 'Questions about the finished jobs you may see: trends, success rate, top templates, busiest hosts, host coverage, failures and time saved.'),
  }, schemas.rootSchemas);
  for (const [key, question] of Object.entries(QUESTIONS)) {
    routeMethods(app, `${ANALYTICS_URL}${key}/`, AUTHENTICATED, {
      GET: async (request) => question.answer(services, request),
      OPTIONS: async () => viewOptions(question.name, question.description),
    }, question.schemas);
  }
}
