/**
 * Sends queued outbound webhook deliveries (src/resources/outbound-webhooks/queue.ts): woken by NOTIFY,
 * by a periodic sweep and when the next retry falls due, it claims due rows (SKIP LOCKED, so nodes share
 * the work) and posts them. A claim moves the row's next attempt CLAIM_MS ahead, so a delivery a node
 * did not finish (a stop, a crash) is tried again later: nothing pending is lost. A failed attempt is
 * tried again after outboundWebhookRetry's delays; a URL the guard refuses fails at once.
 * A webhook's deliveries of one claim go out one after the other in the order they were queued, and its
 * first failure holds the rest back to be tried with it.
 */
import type { Services } from '../api/context.ts';
import type { Database } from '../db/database.ts';
import type { OutboundWebhookDeliveryRow, OutboundWebhookRow } from '../db/tables.ts';
import { startWokenLoop, type WokenLoop } from '../db/woken-loop.ts';
import { outboundPolicy, type OutboundPolicy } from '../net/outbound.ts';
import { deliveryBody } from '../resources/outbound-webhooks/events.ts';
import { OUTBOUND_WEBHOOKS_CHANNEL } from '../resources/outbound-webhooks/queue.ts';
import { attemptDelivery, recordAttempt, type Attempt } from '../resources/outbound-webhooks/send.ts';

/** The waits between attempts: 5 attempts in all by default. Tests shorten them with configureOutboundWebhookRetry. */
export const outboundWebhookRetry: { delaysMs: readonly number[] } = { delaysMs: [5_000, 30_000, 120_000, 600_000] };

export function configureOutboundWebhookRetry(retry: { delaysMs: readonly number[] }): void {
  outboundWebhookRetry.delaysMs = [...retry.delaysMs];
}

const maxAttempts = () => outboundWebhookRetry.delaysMs.length + 1;

const BATCH = 20;
const SWEEP_MS = 15_000;
/** Longer than an attempt can take (its timeout is 10 s). */
const CLAIM_MS = 120_000;
export const DELIVERY_RETENTION_DAYS = 30;
const PRUNE_EVERY_MS = 6 * 60 * 60_000;
const MIN_WAKE_MS = 100;

type Delivery = OutboundWebhookDeliveryRow & { payload: Parameters<typeof deliveryBody>[0] };

async function claim(db: Database): Promise<Delivery[]> {
  return db.query<Delivery>(
    `UPDATE outbound_webhook_deliveries SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => $1::float8 / 1000)
     WHERE id IN (
       SELECT id FROM outbound_webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()
       ORDER BY next_attempt_at, id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [CLAIM_MS],
  );
}

const finish = (db: Database, id: number, status: 'sent' | 'failed', attempt: Pick<Attempt, 'status' | 'error'>) =>
  db.query(
    `UPDATE outbound_webhook_deliveries SET status = $2::text, response_status = $3, error = $4, sent_at = CASE WHEN $2::text = 'sent' THEN now() END WHERE id = $1`,
    [id, status, attempt.status, attempt.error],
  );

/** Sends one webhook's claimed deliveries in order; answers when they are all settled or put back. */
async function sendInOrder(db: Database, webhook: OutboundWebhookRow | undefined, deliveries: Delivery[], policy: OutboundPolicy): Promise<void> {
  for (const [index, delivery] of deliveries.entries()) {
    // Attempts are counted when claimed: more than allowed means the last one was cut off.
    if (delivery.attempts > maxAttempts()) {
      await finish(db, delivery.id, 'failed', { status: delivery.response_status ?? null, error: delivery.error || `Not sent after ${maxAttempts()} attempts.` });
      continue;
    }
    if (!webhook) continue;
    if (!webhook.enabled) {
      await finish(db, delivery.id, 'failed', { status: null, error: 'Not sent: the webhook was disabled.' });
      continue;
    }
    const attempt = await attemptDelivery(webhook, deliveryBody(delivery.payload), policy);
    await recordAttempt(db, webhook.id, attempt);
    if (attempt.ok) {
      await finish(db, delivery.id, 'sent', attempt);
      continue;
    }
    if (!attempt.retry || delivery.attempts >= maxAttempts()) {
      await finish(db, delivery.id, 'failed', attempt);
      continue;
    }
    const delayMs = outboundWebhookRetry.delaysMs[delivery.attempts - 1];
    const rest = deliveries.slice(index + 1).map((d) => d.id);
    await db.query(
      `UPDATE outbound_webhook_deliveries SET response_status = $2, error = $3, next_attempt_at = now() + make_interval(secs => $4::float8 / 1000) WHERE id = $1`,
      [delivery.id, attempt.status, attempt.error, delayMs],
    );
    // Put back, uncounted, to go after this one.
    if (rest.length) {
      await db.query(
        `UPDATE outbound_webhook_deliveries SET attempts = attempts - 1, next_attempt_at = now() + make_interval(secs => $2::float8 / 1000) WHERE id = ANY($1::bigint[])`,
        [rest, delayMs],
      );
    }
    return;
  }
}

/** Claims and sends one batch; answers whether a full batch was found (more may be due). */
async function sendBatch(services: Services): Promise<boolean> {
  const { db } = services;
  const claimed = await claim(db);
  if (!claimed.length) return false;
  const ids = [...new Set(claimed.map((d) => d.webhook_id))];
  const webhooks = new Map((await db.query<OutboundWebhookRow>('SELECT * FROM outbound_webhooks WHERE id = ANY($1::int[])', [ids])).map((w) => [w.id, w]));
  const policy = outboundPolicy(services.settings);
  await Promise.all(ids.map((id) => {
    const mine = claimed.filter((d) => d.webhook_id === id).sort((a, b) => Number(a.id) - Number(b.id));
    return sendInOrder(db, webhooks.get(id), mine, policy)
      .catch((err) => services.logger.error(`outbound webhook ${id}: deliveries not sent:`, err instanceof Error ? err.message : err));
  }));
  return claimed.length === BATCH;
}

/** Milliseconds until the next pending delivery falls due, or null when none is pending. */
async function nextDueInMs(db: Database): Promise<number | null> {
  const [row] = await db.query<{ ms: number | null }>(
    `SELECT (extract(epoch FROM min(next_attempt_at) - now()) * 1000)::float8 AS ms FROM outbound_webhook_deliveries WHERE status = 'pending'`,
  );
  return row?.ms ?? null;
}

/** Removes settled deliveries older than DELIVERY_RETENTION_DAYS; answers how many. */
export async function pruneDeliveries(db: Database): Promise<number> {
  const rows = await db.query(
    `DELETE FROM outbound_webhook_deliveries WHERE status <> 'pending' AND created < now() - make_interval(days => ${DELIVERY_RETENTION_DAYS}) RETURNING id`,
  );
  return rows.length;
}

export interface OutboundWebhookSender {
  /** Wakes the sender and waits until a round begun after the call is over (tests). */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export async function startOutboundWebhookSender(services: Services): Promise<OutboundWebhookSender> {
  let retryTimer: NodeJS.Timeout | undefined;
  let loop: WokenLoop | undefined;
  const wakeWhenDue = async () => {
    const ms = await nextDueInMs(services.db);
    clearTimeout(retryTimer);
    if (ms === null) return;
    // At least MIN_WAKE_MS: rows already due that this round did not get are being claimed by another node.
    retryTimer = setTimeout(() => loop?.wake(), Math.max(MIN_WAKE_MS, Math.ceil(ms) + 10));
    retryTimer.unref();
  };
  loop = await startWokenLoop(services.db, {
    name: 'outbound webhook sender',
    channel: OUTBOUND_WEBHOOKS_CHANNEL,
    sweepMs: SWEEP_MS,
    logger: services.logger,
    async step() {
      if (await sendBatch(services)) return true;
      await wakeWhenDue();
      return false;
    },
  });
  const prune = () => void pruneDeliveries(services.db).catch((err) => services.logger.error('outbound webhook delivery retention failed:', err instanceof Error ? err.message : err));
  const pruner = setInterval(prune, PRUNE_EVERY_MS);
  pruner.unref();
  const firstPrune = setTimeout(prune, 60_000);
  firstPrune.unref();
  return {
    settle: () => loop!.settle(),
    stop: async () => {
      clearInterval(pruner);
      clearTimeout(firstPrune);
      await loop!.stop();
      clearTimeout(retryTimer);
    },
  };
}
