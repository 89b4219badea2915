import type { RequestContext } from '../../api/context.ts';
import { ApiError } from '../../api/errors.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { runKindsOf } from '../../runs/run-services.ts';

/**
 * Before a project goes (AWX): refused with 409 while its updates or jobs are queued or running;
 * otherwise its own updates go with it, while jobs keep their history with the project unset.
 */
export async function beforeProjectDelete(tx: Queryable, ctx: RequestContext, row: Row): Promise<void> {
  const active = await tx.query<{ id: number; kind: string }>(
    `SELECT id, kind FROM unified_jobs WHERE project_id = $1 AND status IN ('new', 'pending', 'waiting', 'running') ORDER BY id`,
    [row.id],
  );
  if (active.length) {
    throw new ApiError(409, { error: 'Resource is being used by running jobs.', active_jobs: active.map((j) => ({ type: j.kind, id: j.id })) });
  }
  await tx.query('UPDATE projects SET last_job_id = NULL, current_job_id = NULL WHERE id = $1', [row.id]);
  await tx.query('DELETE FROM unified_jobs WHERE kind = ANY($2::text[]) AND project_id = $1', [row.id, runKindsOf(ctx.service).updateKindsOf('project_id')]);
}
