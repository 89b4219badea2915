/**
 * Sends queued notifications (src/resources/notification-templates/queue.ts): woken by NOTIFY
 * and by a periodic sweep, it claims pending rows (SKIP LOCKED, so nodes share the work), renders
 * their messages in the sandbox, sends them through the kind's backend and records the outcome.
 * A row stays pending until sent or failed, so a stop loses nothing: a claim a node did not
 * finish is taken again after CLAIM_EXPIRY, up to MAX_ATTEMPTS times. Nothing here touches a run.
 */
import type { NotificationRow, NotificationTemplateRow, UnifiedJobRow } from '../db/tables.ts';
import { startWokenLoop, type WokenLoop } from '../db/woken-loop.ts';
import { outboundPolicy } from '../net/outbound.ts';
import { clearConfiguration, type Configuration } from '../resources/notification-templates/configuration.ts';
import { NOTIFICATION_TYPES } from '../resources/notification-templates/notification-types.ts';
import { NOTIFICATIONS_CHANNEL } from '../resources/notification-templates/queue.ts';
import { BACKENDS } from './backends/index.ts';
import { messageContext, urlBase, type NotificationFacts } from './context.ts';
import { renderPair, testPair } from './messages.ts';
import { jsonObjectOf } from './backends/backend.ts';
import type { RunServices } from '../runs/run-services.ts';

const BATCH = 20;
const SWEEP_MS = 15_000;
const CLAIM_EXPIRY = '5 minutes';
const MAX_ATTEMPTS = 3;

export type NotificationSender = WokenLoop;

/** Claims up to BATCH pending rows: never tried, or claimed long ago by a node that did not finish. */
async function claim(services: RunServices): Promise<NotificationRow[]> {
  return services.db.query<NotificationRow>(
    `UPDATE notifications SET attempts = attempts + 1, modified = now()
     WHERE id IN (
       SELECT id FROM notifications WHERE status = 'pending' AND (attempts = 0 OR (attempts < ${MAX_ATTEMPTS} AND modified < now() - interval '${CLAIM_EXPIRY}'))
       ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
     RETURNING *`,
  );
}

/** What the notification says and to whom, then the send; answers the columns to store. */
async function deliver(services: RunServices, notification: NotificationRow): Promise<Record<string, unknown>> {
  const [template] = await services.db.query<NotificationTemplateRow>('SELECT * FROM notification_templates WHERE id = $1', [notification.notification_template_id]);
  if (!template) return { status: 'failed', error: 'The notification template no longer exists.' };
  const type = template.notification_type as string;
  const configuration = clearConfiguration(template.notification_configuration as Configuration);
  const recipientsValue = configuration[NOTIFICATION_TYPES[type].recipients];
  // A URL's user and password (https://user:pw@host/) are not shown with the notification.
  const recipients = Array.isArray(recipientsValue) ? `[${recipientsValue.map((r) => `'${r}'`).join(', ')}]` : String(recipientsValue ?? '').replace(/^(\w+:\/\/)[^/@\s]*@/, '$1');
  let pair: { subject: string; body: string };
  if (notification.event === 'test') pair = testPair(type, template.id, urlBase(services));
  else {
    const [run] = notification.unified_job_id ? await services.db.query<UnifiedJobRow>('SELECT * FROM unified_jobs WHERE id = $1', [notification.unified_job_id]) : [];
    const context = await messageContext(services, run ?? null, notification as unknown as NotificationFacts);
    pair = await renderPair(type, template.messages, notification.event, context, template.organization_id);
  }
  const shown = { recipients, subject: pair.subject, body: JSON.stringify(jsonObjectOf(pair.body) ?? pair.body) };
  const backend = BACKENDS[type];
  try {
    const sent = await backend({ ...pair, configuration }, outboundPolicy(services.settings));
    return { ...shown, status: 'successful', notifications_sent: sent, error: '' };
  } catch (err) {
    return { ...shown, status: 'failed', error: (err as Error).message || String(err) };
  }
}

/** Each send is a trace of its own. */
const sendOne = (services: RunServices, notification: NotificationRow): Promise<void> =>
  services.tracing.inSpan('notification send', {
    'drover.notification.id': notification.id,
    'drover.notification.event': notification.event,
    'drover.notification.template_id': notification.notification_template_id,
  }, (span) => sendAndStore(services, notification, (status) => span.set({ 'drover.notification.status': status })), { root: true });

async function sendAndStore(services: RunServices, notification: NotificationRow, outcomeIs: (status: string) => void): Promise<void> {
  let outcome: Record<string, unknown>;
  try {
    outcome = await deliver(services, notification);
  } catch (err) {
    // A failure before the send (a secret the key cannot open...): tried again unless attempts are spent.
    if (notification.attempts < MAX_ATTEMPTS) throw err;
    outcome = { status: 'failed', error: `Not sent after ${MAX_ATTEMPTS} attempts: ${(err as Error).message}` };
  }
  outcomeIs(String(outcome.status));
  const columns = Object.keys(outcome);
  await services.db.query(
    `UPDATE notifications SET ${columns.map((c, i) => `${c} = $${i + 2}${c === 'body' ? '::jsonb' : ''}`).join(', ')}, modified = now() WHERE id = $1`,
    [notification.id, ...columns.map((c) => outcome[c])],
  );
  // A drift alert shows how its notification went.
  if (notification.event === 'drift_alert') {
    await services.db.query(
      `UPDATE drift_alerts SET notification_status = $2, notification_error = $3 WHERE notification_id = $1`,
      [notification.id, outcome.status === 'successful' ? 'sent' : 'failed', outcome.status === 'successful' ? '' : String(outcome.error ?? '')],
    );
  }
}

export function startNotificationSender(services: RunServices): Promise<NotificationSender> {
  return startWokenLoop(services.db, {
    name: 'notification sender',
    channel: NOTIFICATIONS_CHANNEL,
    sweepMs: SWEEP_MS,
    logger: services.logger,
    async step() {
      const claimed = await claim(services);
      await Promise.all(claimed.map((n) => sendOne(services, n).catch((err) => services.logger.error(`notification ${n.id} not sent:`, err instanceof Error ? err.message : err))));
      return claimed.length === BATCH;
    },
  });
}
