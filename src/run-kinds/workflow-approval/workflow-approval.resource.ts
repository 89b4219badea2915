import { hasObjectRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { boolean, datetime, ref } from '../../api/fields.ts';
import type { Queryable } from '../../db/database.ts';
import type { UnifiedJobRow } from '../../db/tables.ts';
import { defineRunResource } from '../../runs/run-resource.ts';

/** Which workflows of a page of approvals the caller may answer for (their approval_role). */
async function answerableWorkflows(db: Queryable, rows: readonly Pick<UnifiedJobRow, 'workflow_job_template_id'>[], ctx: RequestContext): Promise<Set<number>> {
  const workflows = new Set(rows.map((r) => r.workflow_job_template_id).filter((id): id is number => id !== null));
  const answerable = new Set<number>();
  if (ctx.tokenScope === 'read') return answerable;
  for (const id of workflows) if (await hasObjectRole(ctx, db, 'workflow_job_template', id, 'approval_role')) answerable.add(id);
  return answerable;
}

/** Approvals: the runs of approval nodes, pending until someone with the workflow's approval_role answers or their time is up. */
export const workflowApprovals = defineRunResource({
  name: 'workflow_approval',
  label: 'Workflow Approval List',
  description: 'Steps of workflow jobs waiting for a person to approve or deny them.',
  fields: {
    workflow_approval_template: ref('workflow_approval_template', { readOnly: true }),
    timed_out: boolean({ readOnly: true }),
    approval_expiration: datetime({ readOnly: true, column: 'approval_expires' }),
    approved_or_denied_by: ref('user', { readOnly: true }),
  },
  owner: { contentType: 'workflow_job_template', column: 'workflow_job_template_id' },
  cancelRole: 'admin_role',
  template: { plural: 'workflow_approval_templates', column: 'workflow_approval_template_id' },
  actions: {
    approve: (ctx, tx, row) => row.workflow_job_template_id !== null && hasObjectRole(ctx, tx, 'workflow_job_template', row.workflow_job_template_id, 'approval_role'),
  },
  prepare: answerableWorkflows,
  decorate: (row, out, prepared) => {
    const base = `/api/v2/workflow_approvals/${row.id}/`;
    out.related = { ...(out.related as object), approve: `${base}approve/`, deny: `${base}deny/` };
    // As AWX: whether the caller may answer it now, not only whether it waits.
    out.can_approve_or_deny = row.status === 'pending' && row.workflow_job_template_id !== null && (prepared as Set<number> | undefined)?.has(row.workflow_job_template_id) === true;
  },
});
