/**
 * The seven analytics questions, each one SQL statement over the day totals of a RunScope (as `r`,
 * see analytics-scope.ts): jobs per day, template and status, and host results per day, template
 * and host. Durations are a run's `elapsed` seconds; rates are percentages; both rounded to two
 * decimals.
 */
import { Params } from '../../api/sql.ts';
import type { Granularity } from './analytics-params.ts';
import type { Ask, RunScope } from './analytics-scope.ts';

const ROUND = (expression: string) => `round((${expression})::numeric, 2)::float8`;
const SUM = (column: string, condition?: string) => `coalesce(sum(r.${column})${condition ? ` FILTER (WHERE ${condition})` : ''}, 0)::int`;
const PERCENT_OF = (part: string, whole: string) => ROUND(`100.0 * ${part} / nullif(${whole}, 0)`);
const AVG_DURATION = ROUND('sum(r.elapsed) / nullif(sum(r.timed_jobs), 0)');
/** A run counts as failed in rankings when it failed or ended in error; a canceled one was stopped, not failed. */
const RUN_FAILED = "r.status IN ('failed', 'error')";
/** Rows of a day a job was deleted in can sum to nothing. */
const ANY_JOBS = 'sum(r.jobs) > 0';

/** The scope's parameters, copied: a question may ask several statements of one scope. */
function paramsOf(scope: RunScope): Params {
  const params = new Params();
  params.values.push(...scope.params.values);
  return params;
}

/**
 * The rows of a totals table the scope counts, from its first day on, and, when the caller sees
 * runs one by one (`scope.shown`), those runs' rows in the same columns, as `r`.
 */
function totals(scope: RunScope, table: string, columns: string, shownRows: string): string {
  const own = `SELECT ${columns.split(', ').map((c) => `t.${c}`).join(', ')} FROM ${table} t
    WHERE t.day >= ${scope.firstDay}${scope.templates ? ` AND ${scope.templates}` : ''}`;
  if (!scope.shown) return `(${own}) r`;
  return `(${own} UNION ALL ${shownRows}
    WHERE analytics_counts(j.kind, j.status, j.finished) AND analytics_day(j.finished) >= ${scope.firstDay} AND ${scope.shown}) r`;
}

/** The counted runs' jobs per day, template and status. */
const jobTotals = (scope: RunScope) => totals(scope, 'job_day_totals', 'day, job_template_id, status, jobs, timed_jobs, elapsed',
  `SELECT analytics_day(j.finished), coalesce(j.job_template_id, 0), j.status, 1, (j.elapsed IS NOT NULL)::int, coalesce(j.elapsed, 0)
    FROM unified_jobs j`);

/** The counted runs' host results per day, template and host. */
const hostTotals = (scope: RunScope) => totals(scope, 'host_day_totals', 'host_id, host_name, jobs, ok, changed, failures, skipped, failed_jobs',
  `SELECT coalesce(s.host_id, 0), s.host_name, 1, s.ok, s.changed, s.failures, s.skipped, (s.failed OR s.failures > 0 OR s.dark > 0)::int
    FROM unified_jobs j JOIN job_host_summaries s ON s.job_id = j.id`);

/** The bucket of a day: its ISO date. */
const bucket = (params: Params, g: Granularity) => `to_char(date_trunc(${params.add(g)}, r.day::timestamp), 'YYYY-MM-DD')`;

export interface TrendRow { date: string; job_count: number; avg_duration: number | null; successful: number; failed: number; error: number; canceled: number }

/** Runs per bucket by status, with their average duration: what job_trends and success_rate show. */
export async function runsByBucket(ask: Ask, scope: RunScope, g: Granularity): Promise<TrendRow[]> {
  const params = paramsOf(scope);
  return ask<TrendRow>(
    `SELECT ${bucket(params, g)} AS date, ${SUM('jobs')} AS job_count, ${AVG_DURATION} AS avg_duration,
       ${SUM('jobs', "r.status = 'successful'")} AS successful, ${SUM('jobs', "r.status = 'failed'")} AS failed,
       ${SUM('jobs', "r.status = 'error'")} AS error, ${SUM('jobs', "r.status = 'canceled'")} AS canceled
     FROM ${jobTotals(scope)} GROUP BY 1 HAVING ${ANY_JOBS}`,
    params.values,
  );
}

export interface TemplateRow { template_id: number; template_name: string; run_count: number; avg_duration: number; success_rate: number; failed_count: number; failure_rate: number }

/**
 * Runs per job template, ranked by run count or by failures; a run whose template was
 * deleted counts under none. Names are the templates' current ones.
 */
export async function runsByTemplate(ask: Ask, scope: RunScope, limit: number, rank: 'runs' | 'failures'): Promise<TemplateRow[]> {
  const params = paramsOf(scope);
  const order = rank === 'runs' ? 'run_count DESC' : 'failed_count DESC, run_count DESC';
  return ask<TemplateRow>(
    `WITH per AS (
       SELECT r.job_template_id AS template_id, ${SUM('jobs')} AS run_count, ${AVG_DURATION} AS avg_duration,
         ${SUM('jobs', "r.status = 'successful'")} AS successful, ${SUM('jobs', RUN_FAILED)} AS failed_count
       FROM ${jobTotals(scope)} GROUP BY 1 HAVING ${ANY_JOBS}${rank === 'failures' ? ` AND ${SUM('jobs', RUN_FAILED)} > 0` : ''})
     SELECT per.template_id, t.name AS template_name, per.run_count, per.avg_duration,
       ${PERCENT_OF('per.successful', 'per.run_count')} AS success_rate, per.failed_count, ${PERCENT_OF('per.failed_count', 'per.run_count')} AS failure_rate
     FROM per JOIN job_templates t ON t.id = per.template_id ORDER BY ${order}, template_id LIMIT ${params.add(limit)}`,
    params.values,
  );
}

export interface HostRow { host_name: string; job_count: number; total_ok: number; total_changed: number; total_failures: number; total_skipped: number; failed_count: number; failure_rate: number }

/** Per host name, the counted runs it took part in and its task results there, ranked by runs or failures. */
export async function runsByHost(ask: Ask, scope: RunScope, limit: number, rank: 'runs' | 'failures'): Promise<HostRow[]> {
  const params = paramsOf(scope);
  const order = rank === 'runs' ? 'job_count DESC' : 'failed_count DESC, job_count DESC';
  return ask<HostRow>(
    `SELECT r.host_name, ${SUM('jobs')} AS job_count, ${SUM('ok')} AS total_ok, ${SUM('changed')} AS total_changed,
       ${SUM('failures')} AS total_failures, ${SUM('skipped')} AS total_skipped,
       ${SUM('failed_jobs')} AS failed_count, ${PERCENT_OF('sum(r.failed_jobs)', 'sum(r.jobs)')} AS failure_rate
     FROM ${hostTotals(scope)}
     GROUP BY r.host_name HAVING ${ANY_JOBS}${rank === 'failures' ? ' AND sum(r.failed_jobs) > 0' : ''}
     ORDER BY ${order}, r.host_name LIMIT ${params.add(limit)}`,
    params.values,
  );
}

export interface InventoryCoverage { inventory_id: number; inventory_name: string; total_hosts: number; automated_hosts: number; coverage_pct: number | null }

/**
 * Per inventory, the hosts the caller may see (`hostCondition` over alias h, built on the
 * statement's parameters) and how many of them a counted run reached.
 */
export async function coverageByInventory(ask: Ask, scope: RunScope, hostCondition: (params: Params) => Promise<string>): Promise<InventoryCoverage[]> {
  const params = paramsOf(scope);
  const visibleHost = await hostCondition(params);
  return ask<InventoryCoverage>(
    `WITH reached AS (SELECT r.host_id FROM ${hostTotals(scope)} WHERE r.host_id <> 0 GROUP BY r.host_id HAVING ${ANY_JOBS}),
     per AS (SELECT h.inventory_id, count(*)::int AS total_hosts, count(reached.host_id)::int AS automated_hosts
       FROM hosts h LEFT JOIN reached ON reached.host_id = h.id WHERE ${visibleHost} GROUP BY h.inventory_id)
     SELECT per.inventory_id, i.name AS inventory_name, per.total_hosts, per.automated_hosts, ${PERCENT_OF('per.automated_hosts', 'per.total_hosts')} AS coverage_pct
     FROM per JOIN inventories i ON i.id = per.inventory_id ORDER BY i.name, per.inventory_id`,
    params.values,
  );
}

/** The count and total run time, in seconds, of the successful runs. */
export async function successfulRunTime(ask: Ask, scope: RunScope): Promise<{ successful_jobs: number; seconds: number }> {
  const params = paramsOf(scope);
  const [row] = await ask<{ successful_jobs: number; seconds: number }>(
    `SELECT ${SUM('jobs')} AS successful_jobs, coalesce(sum(r.elapsed), 0)::float8 AS seconds FROM ${jobTotals(scope)} WHERE r.status = 'successful'`,
    params.values,
  );
  return row;
}
