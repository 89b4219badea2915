/**
 * Deleting old runs: shared by the cleanup_jobs management command and the cleanup_jobs system job.
 * Unfinished runs and the latest update of each project and inventory source are kept.
 */
import type { Queryable } from '../db/database.ts';

/** How cleanup_jobs (the command and the system job) handles a run kind's old runs: a run kind's `cleanup`. */
export interface RunCleanup {
  /** The command's option choosing the kind (--jobs). */
  option: string;
  /** How its runs are named in the report (jobs: 3 deleted, 0 skipped). */
  label: string;
}

/** The kinds cleanup_jobs handles, in the order of the service's run kinds. */
export const cleanupKinds = (kinds: readonly { name: string; cleanup?: RunCleanup }[]): Array<RunCleanup & { kind: string }> =>
  kinds.flatMap((k) => (k.cleanup ? [{ ...k.cleanup, kind: k.name }] : []));

const BATCH = 1_000;

/** Runs created before the cutoff, split into those to delete and those kept. */
const CANDIDATES = `
  SELECT u.id, (u.status IN ('new', 'pending', 'waiting', 'running')
    OR EXISTS (SELECT 1 FROM projects p WHERE p.last_job_id = u.id OR p.current_job_id = u.id)
    OR EXISTS (SELECT 1 FROM inventory_sources s WHERE s.last_job_id = u.id OR s.current_job_id = u.id)) AS kept
  FROM unified_jobs u
  WHERE u.kind = $1 AND u.created < now() - make_interval(days => $2)`;

/** Deletes (in batches, each in its own statement) the runs of one kind to delete; answers the counts. */
export async function cleanupRuns(db: Queryable, kind: string, days: number, dryRun: boolean): Promise<{ deleted: number; skipped: number }> {
  const [{ deletable, kept }] = await db.query<{ deletable: number; kept: number }>(
    `SELECT count(*) FILTER (WHERE NOT c.kept)::int AS deletable, count(*) FILTER (WHERE c.kept)::int AS kept FROM (${CANDIDATES}) c`,
    [kind, days],
  );
  if (dryRun || deletable === 0) return { deleted: deletable, skipped: kept };
  let deleted = 0;
  for (;;) {
    const rows = await db.query(
      `DELETE FROM unified_jobs WHERE id IN (SELECT c.id FROM (${CANDIDATES}) c WHERE NOT c.kept ORDER BY c.id LIMIT ${BATCH}) RETURNING id`,
      [kind, days],
    );
    deleted += rows.length;
    if (rows.length < BATCH) return { deleted, skipped: kept };
  }
}
