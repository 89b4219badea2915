/**
 * Queues outbound webhook deliveries of a run's status change: rows of outbound_webhook_deliveries
 * written in the transaction of the change (so they exist exactly when it commits), then a NOTIFY
 * that wakes the sender (src/notifications/outbound-webhook-sender.ts). Nothing here waits for a
 * send, so a webhook never holds a run up.
 */
import type { Queryable } from '../../db/database.ts';
import { Params } from '../../api/sql.ts';
import type { WebhookEvents } from '../../runs/run-kind.ts';
import { eventOfRun, summarizeRun } from './events.ts';

/** The channel the sender listens to. */
export const OUTBOUND_WEBHOOKS_CHANNEL = 'drover_outbound_webhooks';

export interface RunForWebhooks {
  id: number;
  kind: string;
  status: string;
  name: string;
  organization_id: number | null;
  started: unknown;
  finished: unknown;
  elapsed: number | string;
  launch_type: string;
  execution_node: string;
}

/**
 * Queues a delivery of the run's current status (running is started) to every enabled webhook of the
 * run's organization listening for it: one statement, none at all for runs no event stands for.
 * `events`: those of the run's kind (its webhookEvents). Answers how many.
 */
export async function queueRunWebhooks(tx: Queryable, run: RunForWebhooks, events: WebhookEvents | undefined): Promise<number> {
  const params = new Params();
  const insert = runWebhooksInsert(run, events, params);
  if (!insert) return 0;
  const [row] = await tx.query<{ made: number }>(
    `WITH made AS (${insert})
     SELECT count(*)::integer AS made, (SELECT pg_notify('${OUTBOUND_WEBHOOKS_CHANNEL}', '') FROM made LIMIT 1) AS notified FROM made`,
    params.values,
  );
  return row?.made ?? 0;
}

/** The INSERT of queueRunWebhooks (RETURNING id), for a statement that writes it with others; null when no event stands for the run. */
export function runWebhooksInsert(run: RunForWebhooks, events: WebhookEvents | undefined, params: Params): string | null {
  const event = eventOfRun(run, events);
  if (!event || run.organization_id === null) return null;
  const payload = { event_type: event, timestamp: new Date().toISOString(), job: summarizeRun(run) };
  const e = params.add(event);
  return `INSERT INTO outbound_webhook_deliveries (webhook_id, event_type, run_id, payload)
    SELECT w.id, ${e}, ${params.add(run.id)}, ${params.add(JSON.stringify(payload))}::jsonb FROM outbound_webhooks w
    WHERE w.organization_id = ${params.add(run.organization_id)} AND w.enabled AND w.events @> jsonb_build_array(${e}::text)
    ORDER BY w.id
    RETURNING id`;
}
