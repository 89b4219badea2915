/**
 * What a run's change of status writes beside its row, in one statement: the notifications and
 * outbound webhook deliveries it queues, its template following it, and its notices (live status,
 * a wake-up of the dispatchers...), all delivered when the transaction commits. One statement, not
 * one each, since every run's start and end pays for them, and the template's row (which every run
 * of the template updates) stays locked from this statement to commit: it comes last.
 */
import { ident, Params } from '../api/sql.ts';
import type { Queryable } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import { NOTIFICATIONS_CHANNEL, runNotificationsInsert, type RunEvent } from '../resources/notification-templates/queue.ts';
import { OUTBOUND_WEBHOOKS_CHANNEL, runWebhooksInsert } from '../resources/outbound-webhooks/queue.ts';
import type { RunKind } from './run-kind.ts';

export interface StatusChange {
  /** The run, as its change left it. */
  row: UnifiedJobRow;
  kind: Pick<RunKind, 'templateTable' | 'runNotifications' | 'messages' | 'webhookEvents'>;
  /** The notifications' event, when the change sends notifications and webhooks (a start or an end). */
  event?: RunEvent;
  /** Columns of the run's template to set (none: the template is left alone). */
  follow?: Record<string, unknown>;
  /** [channel, payload] pairs to NOTIFY. */
  notices: readonly (readonly [string, string])[];
}

/** The UPDATE copying a run's state onto its template, or null for runs without one. */
function followTemplateUpdate(kind: Pick<RunKind, 'templateTable'>, row: Pick<UnifiedJobRow, 'unified_job_template_id'>, values: Record<string, unknown>, params: Params): string | null {
  const table = kind.templateTable;
  if (!table || !row.unified_job_template_id) return null;
  const sets = Object.entries(values).map(([column, value]) => `${ident(column)} = ${params.add(value)}`);
  return `UPDATE ${ident(table)} SET ${sets.join(', ')} WHERE id = ${params.add(row.unified_job_template_id)}`;
}

export async function writeStatusChange(tx: Queryable, change: StatusChange): Promise<void> {
  const { row, kind, event } = change;
  const params = new Params();
  const parts: string[] = [];
  const selects = [`SELECT pg_notify(channel, payload) FROM unnest(${params.add(change.notices.map(([c]) => c))}::text[], ${params.add(change.notices.map(([, p]) => p))}::text[]) AS n(channel, payload)`];
  const notifications = event && kind.runNotifications !== false ? runNotificationsInsert(row, event, kind.messages?.projectTemplates ?? false, params) : null;
  if (notifications) {
    parts.push(`notified AS (${notifications})`);
    selects.push(`SELECT pg_notify('${NOTIFICATIONS_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM notified)`);
  }
  const webhooks = event ? runWebhooksInsert(row, kind.webhookEvents, params) : null;
  if (webhooks) {
    parts.push(`delivered AS (${webhooks})`);
    selects.push(`SELECT pg_notify('${OUTBOUND_WEBHOOKS_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM delivered)`);
  }
  const follow = change.follow ? followTemplateUpdate(kind, row, change.follow, params) : null;
  if (follow) parts.push(`follow AS (${follow})`);
  await tx.query(`${parts.length ? `WITH ${parts.join(', ')} ` : ''}${selects.join(' UNION ALL ')}`, params.values);
}
