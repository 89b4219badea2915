/** What the update kinds share to find the updates a waiting run needs (AWX's dependency manager). */
import type { Queryable } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import { isActiveStatus, UNSUCCESSFUL_STATUSES } from './lifecycle.ts';

const isActive = isActiveStatus;

/** A template's latest run, active or finished. */
export type LatestRun = Pick<UnifiedJobRow, 'id' | 'status' | 'finished'> & { template: number };

/** Whether a template's last finished run is too old or failed, so a launch must run it again (AWX's rule). */
export function stale(latest: LatestRun | undefined, cacheTimeoutSeconds: number): boolean {
  if (!latest) return true;
  if (UNSUCCESSFUL_STATUSES.includes(latest.status)) return true;
  // No finish time reads as the epoch (as new Date(null) does): stale.
  return new Date(latest.finished ?? 0).getTime() + cacheTimeoutSeconds * 1000 < Date.now();
}

/** Each template's active run (by id) and its latest finished one, among runs of `kind`. */
export async function latestRuns(tx: Queryable, kind: string, templateIds: number[]): Promise<{ active: Map<number, number>; finished: Map<number, LatestRun> }> {
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
