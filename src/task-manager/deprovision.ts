/** Removing a node from the cluster: at once when it runs nothing, otherwise once what it runs has ended (it takes no new work meanwhile). */
import { recordActivity } from '../activity/record.ts';
import type { RequestContext } from '../api/context.ts';
import type { Database, Queryable } from '../db/database.ts';
import { SCHEDULER_LOCK } from './scheduler-lock.ts';
import { applyInstanceGroupPolicies } from '../resources/instance-groups/policy.ts';
import { ACTIVE_RUN_STATUSES } from '../resources/instances/capacity.ts';

export type Deprovisioned = { removed: true } | { removed: false; activeRuns: number } | null;

const activeRunsOf = `(SELECT count(*) FROM unified_jobs r WHERE r.execution_node = i.hostname AND r.status = ANY($2))::int`;

async function remove(tx: Queryable, ctx: RequestContext, row: { id: number; hostname: string; node_type: string }): Promise<void> {
  await recordActivity(tx, ctx, { operation: 'delete', object1: 'instance', object1Id: row.id, changes: { hostname: row.hostname, node_type: row.node_type } });
  await applyInstanceGroupPolicies(tx);
}

/**
 * Deprovisions `hostname`: removed now when no run is waiting or running there; otherwise marked
 * `deprovisioning` (AWX's node state), so the task manager places nothing more on it, and removed
 * by removeDrainedInstances once its runs end. Null for an unknown hostname.
 */
export async function deprovisionInstance(tx: Queryable, ctx: RequestContext, hostname: string): Promise<Deprovisioned> {
  // No task manager pass places a run on it between the count and the change.
  await tx.query('SELECT pg_advisory_xact_lock($1)', [SCHEDULER_LOCK]);
  const [row] = await tx.query<{ id: number; hostname: string; node_type: string; node_state: string; active: number }>(
    `SELECT i.id, i.hostname, i.node_type, i.node_state, ${activeRunsOf} AS active FROM instances i WHERE i.hostname = $1 FOR UPDATE`,
    [hostname, ACTIVE_RUN_STATUSES],
  );
  if (!row) return null;
  if (row.active > 0) {
    await tx.query(`UPDATE instances SET node_state = 'deprovisioning', modified = now() WHERE id = $1`, [row.id]);
    await recordActivity(tx, ctx, { operation: 'update', object1: 'instance', object1Id: row.id, changes: { node_state: [row.node_state, 'deprovisioning'] } });
    return { removed: false, activeRuns: row.active };
  }
  await tx.query('DELETE FROM instances WHERE id = $1', [row.id]);
  await remove(tx, ctx, row);
  return { removed: true };
}

/** Removes the deprovisioning nodes whose runs have all ended; answers their hostnames. Two nodes doing it at once remove each one once. */
export async function removeDrainedInstances(db: Database, ctx: RequestContext): Promise<string[]> {
  const [draining] = await db.query(`SELECT 1 FROM instances WHERE node_state = 'deprovisioning' LIMIT 1`);
  if (!draining) return [];
  return db.transaction(async (tx) => {
    // While a pass runs (or a stalled node holds its lock), the next watch tries again.
    const [{ locked }] = await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [SCHEDULER_LOCK]);
    if (!locked) return [];
    const rows = await tx.query<{ id: number; hostname: string; node_type: string }>(
      `DELETE FROM instances i WHERE i.node_state = 'deprovisioning' AND ${activeRunsOf.replace('$2', '$1')} = 0 RETURNING i.id, i.hostname, i.node_type`,
      [ACTIVE_RUN_STATUSES],
    );
    for (const row of rows) await remove(tx, ctx, row);
    return rows.map((r) => r.hostname);
  });
}
