import type { RequestContext } from '../api/context.ts';
import type { Queryable } from '../db/database.ts';
import type { InventorySourceRow, ProjectRow, UnifiedJobRow } from '../db/tables.ts';
import { ACTIVE_STATUSES, UNSUCCESSFUL_STATUSES } from '../runs/lifecycle.ts';
import { queueProjectUpdate } from '../run-kinds/project-update/queue.ts';
import { canUpdateSource, queueInventoryUpdate } from '../run-kinds/inventory-update/queue.ts';

const isId = (id: number | null): id is number => Boolean(id);
const isActive = (status: string) => (ACTIVE_STATUSES as readonly string[]).includes(status);

/** A template's latest run, active or finished. */
type LatestRun = Pick<UnifiedJobRow, 'id' | 'status' | 'finished'> & { template: number };

/** Whether a template's last finished run is too old or failed, so a launch must run it again (AWX's rule). */
function stale(latest: LatestRun | undefined, cacheTimeoutSeconds: number): boolean {
  if (!latest) return true;
  if (UNSUCCESSFUL_STATUSES.includes(latest.status)) return true;
  // No finish time reads as the epoch (as new Date(null) does): stale.
  return new Date(latest.finished ?? 0).getTime() + cacheTimeoutSeconds * 1000 < Date.now();
}

async function latestRuns(tx: Queryable, kind: string, templateIds: number[]): Promise<{ active: Map<number, number>; finished: Map<number, LatestRun> }> {
  const rows = await tx.query<LatestRun>(
    `SELECT DISTINCT ON (unified_job_template_id, status IN ('pending', 'waiting', 'running'))
            unified_job_template_id AS template, id, status, finished
     FROM unified_jobs WHERE kind = $1 AND unified_job_template_id = ANY($2::int[]) AND status <> 'new'
     ORDER BY unified_job_template_id, status IN ('pending', 'waiting', 'running'), id DESC`,
    [kind, templateIds],
  );
  const active = new Map<number, number>();
  const finished = new Map<number, LatestRun>();
  for (const r of rows) (isActive(r.status) ? active.set(r.template, r.id) : finished.set(r.template, r));
  return { active, finished };
}

/** The project update each project needs before its jobs run (scm_update_on_launch), creating it when due. */
async function projectDependencies(tx: Queryable, system: RequestContext, projectIds: number[]): Promise<Map<number, number>> {
  const result = new Map<number, number>();
  const projects = await tx.query<ProjectRow>(`SELECT * FROM projects WHERE id = ANY($1::int[]) AND scm_type <> '' AND scm_update_on_launch`, [projectIds]);
  if (!projects.length) return result;
  const { active, finished } = await latestRuns(tx, 'project_update', projects.map((p) => p.id));
  for (const project of projects) {
    const running = active.get(project.id);
    if (running) result.set(project.id, running);
    else if (stale(finished.get(project.id), project.scm_update_cache_timeout)) {
      result.set(project.id, (await queueProjectUpdate(tx, system, project, 'dependency')).id);
    }
  }
  return result;
}

/** The inventory updates each inventory needs before its jobs run (update_on_launch sources), creating them when due. */
async function inventoryDependencies(tx: Queryable, system: RequestContext, inventoryIds: number[]): Promise<Map<number, number[]>> {
  const result = new Map<number, number[]>();
  const sources = await tx.query<InventorySourceRow>(`SELECT * FROM inventory_sources WHERE inventory_id = ANY($1::int[]) AND update_on_launch ORDER BY id`, [inventoryIds]);
  if (!sources.length) return result;
  const { active, finished } = await latestRuns(tx, 'inventory_update', sources.map((s) => s.id));
  for (const source of sources) {
    let dependency = active.get(source.id);
    if (!dependency && canUpdateSource(source) && stale(finished.get(source.id), source.update_cache_timeout)) {
      dependency = (await queueInventoryUpdate(tx, system, source, 'dependency')).id;
    }
    if (dependency) result.set(source.inventory_id, [...(result.get(source.inventory_id) ?? []), dependency]);
  }
  return result;
}

/**
 * AWX's dependency manager: before a job may start, its project (scm_update_on_launch) and its
 * inventory's update_on_launch sources are brought up to date. Each job is processed once; jobs
 * of one pass share the updates they need.
 */
export async function processDependencies(tx: Queryable, system: RequestContext, jobs: Pick<UnifiedJobRow, 'id' | 'project_id' | 'inventory_id'>[]): Promise<void> {
  if (!jobs.length) return;
  // Looked up by the jobs' columns, which may be null (no such key: no dependency).
  const projects: Map<number | null, number> = await projectDependencies(tx, system, [...new Set(jobs.map((j) => j.project_id).filter(isId))]);
  const inventories: Map<number | null, number[]> = await inventoryDependencies(tx, system, [...new Set(jobs.map((j) => j.inventory_id).filter(isId))]);
  const links: Array<[number, number]> = [];
  for (const job of jobs) {
    const project = projects.get(job.project_id);
    if (project) links.push([job.id, project]);
    for (const update of inventories.get(job.inventory_id) ?? []) links.push([job.id, update]);
  }
  if (links.length) {
    await tx.query(
      `INSERT INTO unified_job_dependencies (unified_job_id, dependency_id) SELECT * FROM unnest($1::int[], $2::int[]) ON CONFLICT DO NOTHING`,
      [links.map((l) => l[0]), links.map((l) => l[1])],
    );
  }
  await tx.query('UPDATE unified_jobs SET dependencies_processed = true WHERE id = ANY($1::int[])', [jobs.map((j) => j.id)]);
}
