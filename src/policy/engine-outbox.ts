/**
 * Queues a policy's upload to the engine in the transaction of its change (docs/policy.md, "The
 * engine's copy"): a row of policy_engine_outbox and a NOTIFY that wakes the policy engine sync loop
 * (src/policy/engine-sync.ts) once the change commits. A change that rolls back leaves nothing to
 * send, and nothing here waits for the engine. Removals are queued by the database when a policy row
 * is deleted (migration 0033), so a policy deleted with its organization leaves the engine too.
 */
import type { Queryable } from '../db/database.ts';

/** The channel the sync loop listens to. */
export const POLICY_ENGINE_CHANNEL = 'drover_policy_engine';

export const SYNC_STATES = ['pending', 'synced', 'failed'] as const;

/** Queues the upload of the policy's text as it will be when the transaction commits; `row` shows it pending. */
export async function queuePolicyUpload(tx: Queryable, row: Record<string, unknown> & { id: number }): Promise<void> {
  await tx.query(
    `INSERT INTO policy_engine_outbox (policy_id, operation) VALUES ($1, 'upload')
     ON CONFLICT (policy_id) DO UPDATE SET operation = 'upload', generation = policy_engine_outbox.generation + 1,
       attempts = 0, next_attempt_at = now(), last_error = '', queued = now()`,
    [row.id],
  );
  const [state] = await tx.query(
    `UPDATE policies SET sync_state = 'pending', sync_error = '' WHERE id = $1 RETURNING sync_state, sync_error, synced_at`,
    [row.id],
  );
  await tx.query(`SELECT pg_notify('${POLICY_ENGINE_CHANNEL}', '')`);
  Object.assign(row, state);
}
