/**
 * Approval notifications (AWX's WorkflowApproval.send_approval_notification): "running" when an
 * approval node starts waiting, then "approved", "denied" or "timed_out" when it ends, to the
 * templates attached for approvals to its workflow job template and organization.
 */
import type { Queryable } from '../../db/database.ts';
import type { UnifiedJobRow } from '../../db/tables.ts';
import { queueApprovalNotifications } from '../../resources/notification-templates/queue.ts';

type ApprovalEvent = 'running' | 'approved' | 'denied' | 'timed_out';

/** Queues the approval's notifications of `event`, about the workflow job it belongs to. */
export async function notifyApproval(tx: Queryable, approval: UnifiedJobRow, event: ApprovalEvent, workflowJobId?: number): Promise<void> {
  const [node] = workflowJobId === undefined ? await tx.query<{ id: number }>('SELECT workflow_job_id AS id FROM workflow_job_nodes WHERE job_id = $1', [approval.id]) : [{ id: workflowJobId }];
  await queueApprovalNotifications(
    tx,
    { workflowJobTemplateId: approval.workflow_job_template_id, organizationId: approval.organization_id, workflowJobId: node?.id ?? null },
    event,
    { approval_node_name: approval.name },
  );
}

/** The event an approval's end is: approved, timed out, or denied (a canceled approval notifies nothing). */
export function approvalOutcome(approval: UnifiedJobRow): ApprovalEvent | null {
  if (approval.status === 'successful') return 'approved';
  if (approval.status !== 'failed') return null;
  return approval.timed_out ? 'timed_out' : 'denied';
}
