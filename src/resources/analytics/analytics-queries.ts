/**
 * The seven analytics questions, each one SQL statement over the runs of a RunScope (alias j) and,
 * where hosts count, their job host summaries. Durations are a run's `elapsed` seconds; rates are
 * percentages; both rounded to two decimals.
 */
import { Params } from '../../api/sql.ts';
import type { Granularity } from './analytics-params.ts';
import type { Ask, RunScope } from './analytics-scope.ts';

const ROUND = (expression: string) => `round((${expression})::numeric, 2)::float8`;
const COUNT_IF = (condition: string) => `count(*) FILTER (WHERE ${condition})::int`;
const PERCENT_OF = (part: string, whole: string) => ROUND(`100.0 * ${part} / nullif(${whole}, 0)`);
const AVG_DURATION = ROUND('avg(j.elapsed)');
/** A run counts as failed in rankings when it failed or ended in error; a canceled one was stopped, not failed. */
const RUN_FAILED = "j.status IN ('failed', 'error')";
const HOST_FAILED = '(s.failed OR s.failures > 0 OR s.dark > 0)';

/** The bucket a run's end falls in: its ISO date, UTC. */
const bucket = (params: Params, g: Granularity) => `to_char(date_trunc(${params.add(g)}, j.finished AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`;

/**
 * The summaries of the counted runs, as `s`: looked up run by run through the summaries' job index
 * (OFFSET 0 keeps the lookup per run), so the cost follows the runs of the period, not every
 * summary ever stored, which a hash join would read.
 */
const summariesOf = (from: string) =>
  `(SELECT j.id ${from}) run CROSS JOIN LATERAL (SELECT s.host_id, s.host_name, s.ok, s.changed, s.failures, s.skipped, s.dark, s.failed
     FROM job_host_summaries s WHERE s.job_id = run.id OFFSET 0) s`;

function scoped(scope: RunScope): { params: Params; from: string } {
  const params = new Params();
  params.values.push(...scope.values);
  return { params, from: `FROM unified_jobs j WHERE ${scope.where}` };
}

export interface TrendRow { date: string; job_count: number; avg_duration: number | null; successful: number; failed: number; error: number; canceled: number }

/** Runs per bucket by status, with their average duration: what job_trends and success_rate show. */
export async function runsByBucket(ask: Ask, scope: RunScope, g: Granularity): Promise<TrendRow[]> {
  const { params, from } = scoped(scope);
  return ask<TrendRow>(
    `SELECT ${bucket(params, g)} AS date, count(*)::int AS job_count, ${AVG_DURATION} AS avg_duration,
       ${COUNT_IF("j.status = 'successful'")} AS successful, ${COUNT_IF("j.status = 'failed'")} AS failed,
       ${COUNT_IF("j.status = 'error'")} AS error, ${COUNT_IF("j.status = 'canceled'")} AS canceled
     ${from} GROUP BY 1`,
    params.values,
  );
}

export interface TemplateRow { template_id: number; template_name: string; run_count: number; avg_duration: number; success_rate: number; failed_count: number; failure_rate: number }

/**
 * Runs per job template, ranked by run count or by failures; a run whose template was
 * deleted counts under none. Names are the templates' current ones.
 */
export async function runsByTemplate(ask: Ask, scope: RunScope, limit: number, rank: 'runs' | 'failures'): Promise<TemplateRow[]> {
  const { params, from } = scoped(scope);
  const order = rank === 'runs' ? 'run_count DESC' : 'failed_count DESC, run_count DESC';
  return ask<TemplateRow>(
    `WITH r AS (
       SELECT j.job_template_id AS template_id, count(*)::int AS run_count, ${AVG_DURATION} AS avg_duration,
         ${COUNT_IF("j.status = 'successful'")} AS successful, ${COUNT_IF(RUN_FAILED)} AS failed_count
       ${from} AND j.job_template_id IS NOT NULL GROUP BY 1
       ${rank === 'failures' ? `HAVING ${COUNT_IF(RUN_FAILED)} > 0` : ''}
       ORDER BY ${order}, template_id LIMIT ${params.add(limit)})
     SELECT r.template_id, coalesce(t.name, '') AS template_name, r.run_count, r.avg_duration,
       ${PERCENT_OF('r.successful', 'r.run_count')} AS success_rate, r.failed_count, ${PERCENT_OF('r.failed_count', 'r.run_count')} AS failure_rate
     FROM r LEFT JOIN job_templates t ON t.id = r.template_id ORDER BY ${order}, template_id`,
    params.values,
  );
}

export interface HostRow { host_name: string; job_count: number; total_ok: number; total_changed: number; total_failures: number; total_skipped: number; failed_count: number; failure_rate: number }

/** Per host name, the counted runs it took part in and its task results there, ranked by runs or failures. */
export async function runsByHost(ask: Ask, scope: RunScope, limit: number, rank: 'runs' | 'failures'): Promise<HostRow[]> {
  const { params, from } = scoped(scope);
  const order = rank === 'runs' ? 'job_count DESC' : 'failed_count DESC, job_count DESC';
  return ask<HostRow>(
    `SELECT s.host_name, count(*)::int AS job_count, sum(s.ok)::int AS total_ok, sum(s.changed)::int AS total_changed,
       sum(s.failures)::int AS total_failures, sum(s.skipped)::int AS total_skipped,
       ${COUNT_IF(HOST_FAILED)} AS failed_count, ${PERCENT_OF(`count(*) FILTER (WHERE ${HOST_FAILED})`, 'count(*)')} AS failure_rate
     FROM ${summariesOf(from)}
     GROUP BY s.host_name ${rank === 'failures' ? `HAVING ${COUNT_IF(HOST_FAILED)} > 0` : ''}
     ORDER BY ${order}, s.host_name LIMIT ${params.add(limit)}`,
    params.values,
  );
}

export interface InventoryCoverage { inventory_id: number; inventory_name: string; total_hosts: number; automated_hosts: number; coverage_pct: number | null }

/**
 * Per inventory, the hosts the caller may see (`hostCondition` over alias h, built on `scope`'s
 * parameters) and how many of them a counted run reached.
 */
export async function coverageByInventory(ask: Ask, scope: RunScope, hostCondition: (params: Params) => Promise<string>): Promise<InventoryCoverage[]> {
  const { params, from } = scoped(scope);
  const visibleHost = await hostCondition(params);
  return ask<InventoryCoverage>(
    `WITH reached AS (SELECT DISTINCT s.host_id FROM ${summariesOf(from)} WHERE s.host_id IS NOT NULL),
     per AS (SELECT h.inventory_id, count(*)::int AS total_hosts, count(reached.host_id)::int AS automated_hosts
       FROM hosts h LEFT JOIN reached ON reached.host_id = h.id WHERE ${visibleHost} GROUP BY h.inventory_id)
     SELECT per.inventory_id, i.name AS inventory_name, per.total_hosts, per.automated_hosts, ${PERCENT_OF('per.automated_hosts', 'per.total_hosts')} AS coverage_pct
     FROM per JOIN inventories i ON i.id = per.inventory_id ORDER BY i.name, per.inventory_id`,
    params.values,
  );
}

/** The count and total run time, in seconds, of the successful runs. */
export async function successfulRunTime(ask: Ask, scope: RunScope): Promise<{ successful_jobs: number; seconds: number }> {
  const { params, from } = scoped(scope);
  const [row] = await ask<{ successful_jobs: number; seconds: number }>(
    `SELECT count(*)::int AS successful_jobs, coalesce(sum(j.elapsed), 0)::float8 AS seconds ${from} AND j.status = 'successful'`,
    params.values,
  );
  return row;
}
