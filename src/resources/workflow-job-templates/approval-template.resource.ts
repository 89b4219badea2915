/** Approval templates (AWX's WorkflowApprovalTemplate): what an approval node asks for, made by a node's create_approval_template/. */
import { hasObjectRole, isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { choice, datetime, boolean, integer, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { JOB_TEMPLATE_STATUSES } from '../job-templates/job-template.resource.ts';

/** Whether the caller administers a workflow one of whose nodes uses the approval template. */
async function administersUsingWorkflow(ctx: RequestContext, tx: Queryable, row: Row): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  const workflows = await tx.query<{ id: number }>(
    'SELECT DISTINCT workflow_job_template_id AS id FROM workflow_job_template_nodes WHERE unified_job_template_id = $1', [row.id]);
  for (const w of workflows) if (await hasObjectRole(ctx, tx, 'workflow_job_template', w.id, 'admin_role')) return true;
  return false;
}

const approvalTemplateAccess: AccessPolicy = {
  visible: (ctx, alias, params) =>
    seesEverything(ctx)
      ? null
      : `${alias}.id IN (SELECT n.unified_job_template_id FROM workflow_job_template_nodes n WHERE n.workflow_job_template_id IN (${objectsWithRole('workflow_job_template', ['read_role'], params.add(ctx.user?.id ?? 0))}))`,
  canCreate: () => false,
  canChange: administersUsingWorkflow,
  canDelete: administersUsingWorkflow,
  canAttach: () => false,
};

export const workflowApprovalTemplates = defineResource({
  name: 'workflow_approval_template',
  table: 'workflow_approval_templates',
  label: 'Workflow Approval Template List',
  description: 'What an approval node of a workflow asks: a name, a description and how long it waits.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    timeout: integer({ default: 0, min: 0, helpText: 'The amount of time (in seconds) before the approval node expires and fails.' }),
    status: choice(JOB_TEMPLATE_STATUSES, { readOnly: true }),
    last_job_run: datetime({ readOnly: true }),
    last_job_failed: boolean({ readOnly: true }),
  },
  operations: { create: false },
  search: ['name', 'description'],
  ordering: 'name',
  access: approvalTemplateAccess,
  decorate: (row, out) => {
    out.related = { ...(out.related as object), approvals: `/api/v2/workflow_approval_templates/${row.id}/approvals/` };
  },
});
