import type { Database } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import { failCutOffRuns } from '../runs/lifecycle.ts';
import type { RunKinds } from '../runs/run-kind.ts';
import { HEARTBEAT_GRACE_SECONDS } from './capacity-model.ts';

/**
 * Runs left waiting or running on another node that stopped sending heartbeats are marked
 * failed, as AWX's reaper does for lost instances.
 */
export async function reapLostNodes(db: Database, kinds: RunKinds, ownNode: string): Promise<number> {
  const orphans = await db.query<UnifiedJobRow>(
    `SELECT u.* FROM unified_jobs u JOIN instances i ON i.hostname = u.execution_node
     WHERE u.status IN ('waiting', 'running') AND i.hostname <> $1 AND (i.last_seen IS NULL OR i.last_seen < now() - make_interval(secs => $2))`,
    [ownNode, HEARTBEAT_GRACE_SECONDS],
  );
  return failCutOffRuns(
    db,
    kinds,
    orphans,
    (run) => `Task was marked as running but its node ${run.execution_node} stopped sending heartbeats, so it has been marked as failed.`,
  );
}
