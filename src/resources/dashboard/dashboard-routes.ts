/**
 * AWX's dashboard: GET /api/v2/dashboard/ (counts of what the caller may see, with failures) and
 * GET /api/v2/dashboard/graphs/jobs/ (finished runs per day or hour by status). Every count runs
 * over the list query of its resource, so it agrees with what the caller's lists show.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../api/context.ts';
import type { RunKinds } from '../../runs/run-kind.ts';
import type { RunServices } from '../../runs/run-services.ts';
import { badRequest } from '../../api/errors.ts';
import { countVisible, visibleFrom, type Query } from '../../api/list.ts';
import { viewOptions } from '../../api/options.ts';
import { AUTHENTICATED } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { dashboardSchemas, jobsGraphSchemas } from './dashboard-schemas.ts';

export const DASHBOARD_URL = '/api/v2/dashboard/';
export const GRAPH_URL = '/api/v2/dashboard/graphs/jobs/';

/** count(*) and conditional counts over the visible rows of a resource. */
async function counts(services: Services, request: FastifyRequest, resource: string, conditions: Record<string, string>, query: Query = {}): Promise<Record<string, number>> {
  const { db } = services;
  const { alias, from, params } = await visibleFrom(db, request.ctx, services.resources.get(resource), query);
  const columns = Object.entries(conditions).map(([name, condition]) => `count(*) FILTER (WHERE ${condition.replaceAll('t.', `${alias}.`)})::int AS ${name}`);
  const [row] = await db.query<Record<string, number>>(`SELECT ${['count(*)::int AS total', ...columns].join(', ')} ${from}`, params);
  return row;
}

async function dashboard(services: Services, request: FastifyRequest) {
  const ctx = request.ctx;
  const inventories = await counts(services, request, 'inventory', { job_failed: 't.hosts_with_active_failures > 0', with_source: 't.has_inventory_sources' });
  const { alias, from, params } = await visibleFrom(services.db, ctx, services.resources.get('inventory'), {});
  const [{ failed_sources }] = await services.db.query<{ failed_sources: number }>(`SELECT coalesce(sum(${alias}.inventory_sources_with_failures), 0)::int AS failed_sources ${from}`, params);
  const hosts = await counts(services, request, 'host', { failed: 't.has_active_failures' });
  const projects = await counts(services, request, 'project', { failed: 't.last_job_failed', git: "t.scm_type = 'git'", git_failed: "t.scm_type = 'git' AND t.last_job_failed" });
  const groups = await countVisible(services.db, ctx, services.resources.get('group'));
  const total = (resource: string) => countVisible(services.db, ctx, services.resources.get(resource));
  return {
    related: { jobs_graph: GRAPH_URL },
    inventories: {
      url: '/api/v2/inventories/',
      total: inventories.total,
      total_with_inventory_source: inventories.with_source,
      job_failed: inventories.job_failed,
      inventory_failed: failed_sources,
    },
    groups: { url: '/api/v2/groups/', total: groups, inventory_failed: 0 },
    hosts: { url: '/api/v2/hosts/', failures_url: '/api/v2/hosts/?has_active_failures=true', total: hosts.total, failed: hosts.failed },
    projects: { url: '/api/v2/projects/', failures_url: '/api/v2/projects/?last_job_failed=true', total: projects.total, failed: projects.failed },
    scm_types: {
      git: { url: '/api/v2/projects/?scm_type=git', label: 'Git', failures_url: '/api/v2/projects/?scm_type=git&last_job_failed=true', total: projects.git, failed: projects.git_failed },
    },
    users: { url: '/api/v2/users/', total: await total('user') },
    organizations: { url: '/api/v2/organizations/', total: await total('organization') },
    teams: { url: '/api/v2/teams/', total: await total('team') },
    credentials: { url: '/api/v2/credentials/', total: await total('credential') },
    job_templates: { url: '/api/v2/job_templates/', total: await total('job_template') },
  };
}

const PERIODS: Record<string, { days: number; unit: 'day' | 'hour' }> = {
  month: { days: 30, unit: 'day' },
  two_weeks: { days: 14, unit: 'day' },
  week: { days: 7, unit: 'day' },
  day: { days: 1, unit: 'hour' },
};
/** The graph's job types: all, then each kind's dashboardJobType (playbook_run, scm_update, inv_sync), with the kind it counts. */
const jobTypes = (kinds: RunKinds): Map<string, string | null> => new Map([['all', null], ...kinds.dashboardJobTypes()]);
const STATUSES = ['successful', 'failed', 'canceled', 'error'] as const;

/** Finished runs per period step and status: {jobs: {successful: [[epoch seconds, count], ...], ...}}. */
async function jobsGraph(services: Services, types: Map<string, string | null>, request: FastifyRequest) {
  const q = request.query as Record<string, string | undefined>;
  const period = PERIODS[q.period ?? 'month'];
  if (!period) throw badRequest(`Unknown period "${q.period}"`);
  const kind = types.get(q.job_type ?? 'all');
  if (kind === undefined) throw badRequest(`Unknown job type "${q.job_type}"`);
  const ctx = request.ctx;
  const { alias, from, params } = await visibleFrom(services.db, ctx, services.resources.get('unified_job'), {});
  const stepMs = period.unit === 'day' ? 86_400_000 : 3_600_000;
  const end = Date.now();
  const start = Math.floor((end - period.days * 86_400_000) / stepMs) * stepMs;
  const extra = [...params, new Date(start).toISOString(), period.unit];
  const at = params.length;
  const rows = await services.db.query<{ step: string | number; status: string; count: number }>(
    `SELECT extract(epoch FROM date_trunc($${at + 2}, ${alias}.finished AT TIME ZONE 'UTC'))::bigint AS step, ${alias}.status, count(*)::int AS count ${from}
     ${from.includes(' WHERE ') ? 'AND' : 'WHERE'} ${alias}.finished >= $${at + 1}::timestamptz AND ${alias}.launch_type <> 'sync'
     AND ${alias}.status IN ('successful', 'failed', 'canceled', 'error')${kind ? ` AND ${alias}.kind = $${at + 3}` : ''}
     GROUP BY 1, 2`,
    kind ? [...extra, kind] : extra,
  );
  const byStep = new Map<string, number>();
  for (const row of rows) byStep.set(`${Number(row.step) * 1000}/${row.status}`, row.count);
  const jobs = Object.fromEntries(STATUSES.map((status) => [status, [] as [number, number][]]));
  for (let step = start; step <= end; step += stepMs) {
    for (const status of STATUSES) jobs[status].push([step / 1000, byStep.get(`${step}/${status}`) ?? 0]);
  }
  return { jobs };
}

export function dashboardRoutes(app: FastifyInstance, services: RunServices): void {
  const types = jobTypes(services.runKinds);
  const names = [...types.keys()];
  routeMethods(app, DASHBOARD_URL, AUTHENTICATED, {
    GET: async (request) => dashboard(services, request),
    OPTIONS: async () => viewOptions('Dashboard', 'Counts of what you may see: inventories, hosts, projects, users, teams, credentials and templates, with failures.'),
  }, dashboardSchemas);
  routeMethods(app, GRAPH_URL, AUTHENTICATED, {
    GET: async (request) => jobsGraph(services, types, request),
    OPTIONS: async () => viewOptions('Dashboard Jobs Graphs', `Finished runs per day (per hour for period=day) by status; period month, two_weeks, week or day; job_type ${names.slice(0, -1).join(', ')} or ${names.at(-1)}.`),
  }, jobsGraphSchemas(names));
}
