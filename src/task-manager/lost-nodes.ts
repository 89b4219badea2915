import type { Database } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import { DISPATCH_CHANNEL, finishRun } from '../runs/lifecycle.ts';
import type { RunKinds } from '../runs/run-kind.ts';
import { LIVE_CHANNEL, statusNoticePayload } from '../live/notices.ts';

/** AWX's errors text of an instance another node found silent (awx/main/tasks/system.py). */
export const UNRESPONSIVE = 'Another cluster node has determined this instance to be unresponsive';

export const requeuedExplanation = (node: string) =>
  `Its node ${node} stopped sending heartbeats before starting it, so it was queued again to run on another node.`;

export const reapedExplanation = (node: string) =>
  `Task was marked as running but its node ${node} stopped sending heartbeats, so it has been marked as failed.`;

/** An instance other than this node whose last heartbeat is older than the grace period ($1: this node, $2: grace seconds). */
const isLost = (alias: string) => `${alias}.hostname <> $1 AND ${alias}.last_seen < now() - make_interval(secs => $2)`;

export interface Reaped {
  /** Nodes this call marked unavailable. */
  unavailable: string[];
  requeued: UnifiedJobRow[];
  failed: UnifiedJobRow[];
}

/**
 * AWX's handling of lost instances, run by every live node: a node silent for the grace period is
 * marked unavailable with no capacity (mark_offline), the runs it was given but never started go
 * back to pending (the next task manager pass places them elsewhere), and its running runs are
 * failed naming it. Each step locks the rows it changes (skipping those locked elsewhere) and
 * re-checks them, so when several nodes look at once, exactly one acts on each node and each run.
 */
export async function reapLostNodes(db: Database, kinds: RunKinds, ownNode: string, graceSeconds: number): Promise<Reaped> {
  // Rows another transaction holds (possibly one of a node frozen mid-transaction) are skipped, not
  // waited for, and looked at again next time: a watch never hangs on a stalled node.
  const unavailable = await db.query<{ hostname: string }>(
    `UPDATE instances i SET node_state = 'unavailable', capacity = 0, cpu_capacity = 0, mem_capacity = 0, errors = $3, modified = now()
     FROM (SELECT l.id FROM instances l WHERE l.node_state = 'ready' AND ${isLost('l')} FOR UPDATE SKIP LOCKED) lost
     WHERE i.id = lost.id RETURNING i.hostname`,
    [ownNode, graceSeconds, UNRESPONSIVE],
  );
  const requeued = await db.transaction(async (tx) => {
    const line = `format($3::text, u.execution_node)`;
    const rows = await tx.query<UnifiedJobRow>(
      `UPDATE unified_jobs u SET status = 'pending', execution_node = '', controller_node = '', instance_group_id = NULL, modified = now(),
         launch_warnings = CASE WHEN u.launch_warnings = '' THEN ${line} ELSE u.launch_warnings || E'\\n' || ${line} END,
         job_explanation = CASE WHEN u.launch_warnings = '' THEN ${line} ELSE u.launch_warnings || E'\\n' || ${line} END
       FROM (SELECT r.id FROM unified_jobs r JOIN instances i ON i.hostname = r.execution_node
             WHERE r.status = 'waiting' AND r.started IS NULL AND ${isLost('i')} FOR UPDATE OF r SKIP LOCKED) given
       WHERE u.id = given.id RETURNING u.*`,
      [ownNode, graceSeconds, requeuedExplanation('%s')],
    );
    for (const row of rows) await tx.query('SELECT pg_notify($1, $2)', [LIVE_CHANNEL, statusNoticePayload(row)]);
    if (rows.length) await tx.query('SELECT pg_notify($1, $2)', [DISPATCH_CHANNEL, '']);
    return rows;
  });
  const candidates = await db.query<{ id: number }>(
    `SELECT u.id FROM unified_jobs u JOIN instances i ON i.hostname = u.execution_node
     WHERE u.status IN ('waiting', 'running') AND ${isLost('i')} ORDER BY u.id`,
    [ownNode, graceSeconds],
  );
  const failed: UnifiedJobRow[] = [];
  for (const { id } of candidates) {
    const row = await db.transaction(async (tx) => {
      // Another node's reaper, or the node itself finishing, may have got there first (or holds it now: next time).
      const [run] = await tx.query<UnifiedJobRow>(`SELECT * FROM unified_jobs WHERE id = $1 AND status IN ('waiting', 'running') FOR UPDATE SKIP LOCKED`, [id]);
      if (!run) return null;
      return finishRun(tx, kinds, run, { status: 'failed', explanation: reapedExplanation(run.execution_node), emittedEvents: run.emitted_events });
    });
    if (row) failed.push(row);
  }
  return { unavailable: unavailable.map((r) => r.hostname), requeued, failed };
}

/** Seconds until the next node that is ready now would become lost, if none sends a heartbeat meanwhile; null when there is no other ready node. */
export async function secondsUntilNextLoss(db: Database, ownNode: string, graceSeconds: number): Promise<number | null> {
  const [row] = await db.query<{ wait: number | null }>(
    `SELECT extract(epoch FROM min(last_seen) + make_interval(secs => $2) - now())::float8 AS wait
     FROM instances WHERE hostname <> $1 AND node_state = 'ready' AND last_seen IS NOT NULL`,
    [ownNode, graceSeconds],
  );
  return row?.wait ?? null;
}
