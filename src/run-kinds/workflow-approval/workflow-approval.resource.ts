import { hasObjectRole } from '../../api/access.ts';
import { boolean, datetime, ref } from '../../api/fields.ts';
import { defineRunResource } from '../../runs/run-resource.ts';

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
  decorate: (row, out) => {
    const base = `/api/v2/workflow_approvals/${row.id}/`;
    out.related = { ...(out.related as object), approve: `${base}approve/`, deny: `${base}deny/` };
    out.can_approve_or_deny = row.status === 'pending';
  },
});
