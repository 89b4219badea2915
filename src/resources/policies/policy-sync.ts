/**
 * Keeps the engine's copy of a policy: uploaded when the policy is created, its Rego changes or it
 * is enabled, removed when it is deleted. The engine being down never fails the change: the policy
 * records last_sync_status failed (and why) instead.
 */
import type { ServiceView } from '../../api/context.ts';
import type { Queryable } from '../../db/database.ts';
import { EngineError, engineOf, removePolicy, uploadPolicy } from '../../policy/engine.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** Uploads the policy and stores the outcome on `row` and in its row. */
export async function syncPolicy(tx: Queryable, service: ServiceView, row: AnyRow): Promise<void> {
  let status = 'ok';
  let error = '';
  try {
    await uploadPolicy(engineOf(service.settings), row.id, String(row.rego_module));
  } catch (err) {
    if (!(err instanceof EngineError)) throw err;
    [status, error] = ['failed', err.message];
  }
  await tx.query<AnyRow>('UPDATE policies SET last_sync_status = $2, last_sync_error = $3 WHERE id = $1', [row.id, status, error]);
  Object.assign(row, { last_sync_status: status, last_sync_error: error });
}

export async function unsyncPolicy(service: ServiceView, row: AnyRow): Promise<void> {
  try {
    await removePolicy(engineOf(service.settings), row.id);
  } catch (err) {
    if (!(err instanceof EngineError)) throw err;
  }
}
