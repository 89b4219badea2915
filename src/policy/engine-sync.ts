/**
 * The policy engine sync loop (docs/policy.md, "The engine's copy"): uploads and removals queued in
 * policy_engine_outbox (src/policy/engine-outbox.ts) are sent after their change commits. Woken by
 * NOTIFY, by a periodic sweep and when a retry falls due, it claims due rows (SKIP LOCKED, so nodes
 * share the work), sends them and records the outcome on the policy: synced, or failed with the
 * engine's reason and tried again after a backoff, for as long as it takes the engine to accept it.
 */
import type { Settings } from '../config/settings/store.ts';
import type { Database } from '../db/database.ts';
import { startWokenLoop, type WokenLoop } from '../db/woken-loop.ts';
import type { ServiceLogger } from '../api/logger.ts';
import { EngineError, engineOf, removePolicy, uploadPolicy } from './engine.ts';
import { POLICY_ENGINE_CHANNEL } from './engine-outbox.ts';

export interface PolicyEngineSyncOptions {
  /** The waits after each failed attempt; the last one repeats for ever. */
  retryDelaysMs?: readonly number[];
}

export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 30_000, 120_000, 300_000];

const BATCH = 20;
const SWEEP_MS = 15_000;
/** Longer than an attempt can take (the engine's timeout is a setting of seconds). */
const CLAIM_MS = 120_000;
const MIN_WAKE_MS = 50;
const MAX_ERROR = 1000;

interface Claimed {
  policy_id: number;
  operation: 'upload' | 'remove';
  generation: number;
  attempts: number;
}

export interface PolicyEngineSync {
  wake(): void;
  /** Wakes the sync and waits until a round begun after the call is over (tests). */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/** An error as the policy shows it: no user or password of a URL (the engine's address may carry them). */
export const shownError = (message: string) => message.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/gi, '$1').slice(0, MAX_ERROR);

async function claim(db: Database): Promise<Claimed[]> {
  return db.query<Claimed>(
    `UPDATE policy_engine_outbox SET attempts = attempts + 1, claimed_until = now() + make_interval(secs => $1::float8 / 1000)
     WHERE policy_id IN (
       SELECT policy_id FROM policy_engine_outbox
       WHERE next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
       ORDER BY next_attempt_at, policy_id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
     RETURNING policy_id, operation, generation, attempts`,
    [CLAIM_MS],
  );
}

/** Sends one claimed operation; answers whether a newer one of the same policy waits (queued during the attempt). */
async function sendOne(db: Database, settings: Pick<Settings, 'get'>, row: Claimed, delays: readonly number[]): Promise<boolean> {
  let error: string | null = null;
  try {
    if (row.operation === 'remove') await removePolicy(engineOf(settings), row.policy_id);
    else {
      // The text as it is now: a change since the claim queued a newer generation, sent after this one.
      const [policy] = await db.query<{ rego_module: string }>('SELECT rego_module FROM policies WHERE id = $1', [row.policy_id]);
      if (policy) await uploadPolicy(engineOf(settings), row.policy_id, policy.rego_module);
    }
  } catch (err) {
    if (!(err instanceof EngineError)) throw err;
    error = shownError(err.message);
  }
  return db.transaction(async (tx) => {
    // The policy's row first, as a save locks it before it queues its upload: the two never wait on each other in turn.
    await tx.query('SELECT id FROM policies WHERE id = $1 FOR NO KEY UPDATE', [row.policy_id]);
    const current = error === null
      ? await tx.query('DELETE FROM policy_engine_outbox WHERE policy_id = $1 AND generation = $2 RETURNING policy_id', [row.policy_id, row.generation])
      : await tx.query(
        `UPDATE policy_engine_outbox SET claimed_until = NULL, last_error = $3, next_attempt_at = now() + make_interval(secs => $4::float8 / 1000)
         WHERE policy_id = $1 AND generation = $2 RETURNING policy_id`,
        [row.policy_id, row.generation, error, delays[Math.min(row.attempts, delays.length) - 1]],
      );
    if (!current.length) {
      // Superseded while it was sent: the newer operation is due now.
      await tx.query('UPDATE policy_engine_outbox SET claimed_until = NULL WHERE policy_id = $1', [row.policy_id]);
      return true;
    }
    if (row.operation === 'upload') {
      await tx.query(
        error === null
          ? `UPDATE policies SET sync_state = 'synced', sync_error = '', synced_at = now() WHERE id = $1`
          : `UPDATE policies SET sync_state = 'failed', sync_error = $2 WHERE id = $1`,
        error === null ? [row.policy_id] : [row.policy_id, error],
      );
    }
    return false;
  });
}

/** Gives a claimed operation back, due in a second (its outcome could not be stored). */
async function releaseClaim(db: Database, row: Claimed): Promise<void> {
  await db.query(
    `UPDATE policy_engine_outbox SET claimed_until = NULL, next_attempt_at = now() + interval '1 second' WHERE policy_id = $1 AND generation = $2`,
    [row.policy_id, row.generation],
  );
}

/** Milliseconds until the next queued operation falls due (or its claim expires), null when none is queued. */
async function nextDueInMs(db: Database): Promise<number | null> {
  const [row] = await db.query<{ ms: number | null }>(
    `SELECT (extract(epoch FROM min(GREATEST(next_attempt_at, COALESCE(claimed_until, next_attempt_at))) - now()) * 1000)::float8 AS ms FROM policy_engine_outbox`,
  );
  return row?.ms ?? null;
}

export async function startPolicyEngineSync(
  services: { db: Database; settings: Pick<Settings, 'get'>; logger: ServiceLogger }, options: PolicyEngineSyncOptions = {},
): Promise<PolicyEngineSync> {
  const { db, settings, logger } = services;
  const delays = options.retryDelaysMs?.length ? options.retryDelaysMs : DEFAULT_RETRY_DELAYS_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  let loop: WokenLoop | undefined;
  const wakeWhenDue = async () => {
    const ms = await nextDueInMs(db);
    clearTimeout(retryTimer);
    if (ms === null) return;
    // At least MIN_WAKE_MS: rows already due that this round did not get are being sent by another node.
    retryTimer = setTimeout(() => loop?.wake(), Math.max(MIN_WAKE_MS, Math.ceil(ms) + 10));
    retryTimer.unref();
  };
  loop = await startWokenLoop(db, {
    name: 'policy engine sync',
    channel: POLICY_ENGINE_CHANNEL,
    sweepMs: SWEEP_MS,
    logger,
    async step() {
      const claimed = await claim(db);
      const more = await Promise.all(claimed.map((row) => sendOne(db, settings, row, delays).catch(async (err) => {
        logger.error(`policy ${row.policy_id}: engine not updated:`, err instanceof Error ? err.message : err);
        // Tried again soon rather than when the claim runs out.
        await releaseClaim(db, row).catch(() => undefined);
        return false;
      })));
      if (claimed.length === BATCH || more.some(Boolean)) return true;
      await wakeWhenDue();
      return false;
    },
  });
  return {
    wake: () => loop!.wake(),
    settle: () => loop!.settle(),
    stop: async () => {
      await loop!.stop();
      clearTimeout(retryTimer);
    },
  };
}
