/**
 * Queues notifications: rows in `notifications` with status pending, written in the caller's
 * transaction (so they exist exactly when the change that caused them commits), then a NOTIFY
 * that wakes the sender loop (src/notifications/sender.ts). Rows left pending by a stop are sent
 * after the next start.
 */
import type { Queryable } from '../../db/database.ts';
import { Params } from '../../api/sql.ts';

/** The channel the sender loop listens to. */
export const NOTIFICATIONS_CHANNEL = 'drover_notifications';

export type RunEvent = 'started' | 'success' | 'error';
/**
 * What a notification is sent for: a run event, a workflow approval's (workflow_approval.running...),
 * a service request's (service_request.requested...), a drift alert, an event rule's firing, or a test.
 */
export type NotificationEvent =
  | RunEvent | `workflow_approval.${'running' | 'approved' | 'denied' | 'timed_out'}` | `service_request.${'requested' | 'approved' | 'rejected' | 'finished'}`
  | 'drift_alert' | 'event_rule' | 'test';

/** The run facts that decide which templates are attached to it. */
export interface RunForNotifications {
  id: number;
  kind: string;
  status: string;
  unified_job_template_id: number | null;
  organization_id?: number | null;
  project_id?: number | null;
}

/**
 * The INSERT queuing the notifications of a run's event (RETURNING id), for a statement that writes
 * it with others; null when nothing can be attached to the run. Templates attached to its template,
 * to its organization, and with `projectTemplates` (jobs) to its project (as AWX collects them).
 */
export function runNotificationsInsert(run: RunForNotifications, event: RunEvent, projectTemplates: boolean, params: Params): string | null {
  const templates = [run.unified_job_template_id, projectTemplates ? run.project_id : null].filter((id): id is number => typeof id === 'number');
  if (!templates.length && !run.organization_id) return null;
  const e = params.add(event);
  return `INSERT INTO notifications (notification_template_id, notification_type, event, unified_job_id, run_status)
    SELECT nt.id, nt.notification_type, ${e}, ${params.add(run.id)}, ${params.add(run.status)} FROM notification_templates nt
    WHERE nt.id IN (
      SELECT notification_template_id FROM unified_job_template_notification_templates WHERE event = ${e} AND unified_job_template_id = ANY(${params.add(templates)}::integer[])
      UNION SELECT notification_template_id FROM organization_notification_templates WHERE event = ${e} AND organization_id = ${params.add(run.organization_id ?? null)})
    ORDER BY nt.id
    RETURNING id`;
}

/** Queues the notifications of a run's event (runNotificationsInsert) and wakes the sender. Answers how many. */
export async function queueRunNotifications(tx: Queryable, run: RunForNotifications, event: RunEvent, projectTemplates = false): Promise<number> {
  const params = new Params();
  const insert = runNotificationsInsert(run, event, projectTemplates, params);
  if (!insert) return 0;
  const rows = await tx.query<{ made: number; notified: unknown }>(
    `WITH made AS (${insert})
     SELECT count(*)::integer AS made, (SELECT pg_notify('${NOTIFICATIONS_CHANNEL}', '') FROM made LIMIT 1) AS notified FROM made`,
    params.values,
  );
  return rows[0]?.made ?? 0;
}

export interface TemplateNotification {
  /** The run it is about, if any (a workflow approval's workflow job). */
  unifiedJobId?: number | null;
  /** Context beyond the run's (approval_node_name, workflow_url...), offered to the messages. */
  extraContext?: Record<string, unknown>;
}

/**
 * Queues one notification of `templateId` for `event`: what other features call to notify
 * through a template (workflow approvals: event "workflow_approval.running"...). Answers its id.
 */
export async function queueTemplateNotification(tx: Queryable, templateId: number, event: NotificationEvent, what: TemplateNotification = {}): Promise<number> {
  const [row] = await tx.query<{ id: number }>(
    `INSERT INTO notifications (notification_template_id, notification_type, event, unified_job_id, run_status, extra_context)
     SELECT nt.id, nt.notification_type, $2, u.id, coalesce(u.status, ''), $4::jsonb
     FROM notification_templates nt LEFT JOIN unified_jobs u ON u.id = $3 WHERE nt.id = $1
     RETURNING id`,
    [templateId, event, what.unifiedJobId ?? null, JSON.stringify(what.extraContext ?? {})],
  );
  if (!row) throw new Error(`notification template ${templateId} does not exist`);
  await tx.query(`SELECT pg_notify('${NOTIFICATIONS_CHANNEL}', '')`);
  return row.id;
}

/**
 * Queues the notifications of a workflow approval event (`running`, `approved`, `denied`,
 * `timed_out`): every template attached for approvals to the workflow job template or to its
 * organization, with the approval's context. Answers how many.
 */
export async function queueApprovalNotifications(
  tx: Queryable,
  approval: { workflowJobTemplateId: number | null; organizationId: number | null; workflowJobId: number | null },
  event: 'running' | 'approved' | 'denied' | 'timed_out',
  /** workflow_url defaults to the workflow job's address (see messageContext). */
  extraContext: { approval_node_name: string; workflow_url?: string; [name: string]: unknown },
): Promise<number> {
  const templates = await tx.query<{ id: number }>(
    `SELECT notification_template_id AS id FROM unified_job_template_notification_templates WHERE event = 'approvals' AND unified_job_template_id = $1
     UNION SELECT notification_template_id FROM organization_notification_templates WHERE event = 'approvals' AND organization_id = $2
     ORDER BY id`,
    [approval.workflowJobTemplateId, approval.organizationId],
  );
  for (const { id } of templates) {
    await queueTemplateNotification(tx, id, `workflow_approval.${event}`, { unifiedJobId: approval.workflowJobId, extraContext: { approval_status: event, ...extraContext } });
  }
  return templates.length;
}
