/** Who may see, change, run and approve workflow job templates (AWX's WorkflowJobTemplateAccess). */
import { hasObjectRole, hasObjectRoleOnRow, isSuperuser, objectsWithRole, visibleThroughRole, type AccessPolicy, type Capability, type ObjectAction } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { WorkflowJobTemplateRow } from '../../db/tables.ts';

async function administersSomeWorkflows(ctx: RequestContext, tx: Queryable): Promise<boolean> {
  if (!ctx.user) return false;
  const rows = await tx.query(`SELECT 1 FROM (${objectsWithRole('organization', ['workflow_admin_role'], '$1')}) AS administered LIMIT 1`, [ctx.user.id]);
  return rows.length > 0;
}

/** The organization (workflow_admin_role) and inventory (use_role) a template is given. */
async function mayUseReferences(ctx: RequestContext, tx: Queryable, values: Values, existing: WorkflowJobTemplateRow | null): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if ('organization' in values && values.organization !== (existing?.organization_id ?? undefined)) {
    if (typeof values.organization !== 'number') return false;
    if (!(await hasObjectRole(ctx, tx, 'organization', values.organization, 'workflow_admin_role'))) return false;
  }
  if (typeof values.inventory === 'number' && values.inventory !== existing?.inventory_id) {
    const [inventory] = await tx.query('SELECT 1 FROM inventories WHERE id = $1', [values.inventory]);
    if (inventory && !(await hasObjectRole(ctx, tx, 'inventory', values.inventory, 'use_role'))) return false;
  }
  return true;
}

export const workflowTemplateAccess: AccessPolicy<WorkflowJobTemplateRow> = {
  visible: (ctx, alias, params) => visibleThroughRole(ctx, alias, params, 'workflow_job_template'),
  canCreate: async (ctx, tx, values) => {
    if (isSuperuser(ctx)) return true;
    if (!ctx.user) return false;
    // OPTIONS asks with no values: whether the caller administers workflows anywhere.
    if (!Object.keys(values).length) return administersSomeWorkflows(ctx, tx);
    // AWX: an organization is required of anyone but a superuser.
    if (typeof values.organization !== 'number') return false;
    return mayUseReferences(ctx, tx, values, null);
  },
  canChange: async (ctx, tx, row, values, page) =>
    (await hasObjectRoleOnRow(ctx, tx, 'workflow_job_template', 'admin_role', row, page)) && mayUseReferences(ctx, tx, values, row),
  canDelete: (ctx, tx, row, page) => hasObjectRoleOnRow(ctx, tx, 'workflow_job_template', 'admin_role', row, page),
  canAttach: (ctx, tx, row) => hasObjectRoleOnRow(ctx, tx, 'workflow_job_template', 'admin_role', row),
};

export const mayAdministerWorkflow = (ctx: RequestContext, tx: Queryable, templateId: number) =>
  hasObjectRole(ctx, tx, 'workflow_job_template', templateId, 'admin_role');

export async function assertWorkflowAdmin(ctx: RequestContext, tx: Queryable, templateId: number): Promise<void> {
  if (!(await mayAdministerWorkflow(ctx, tx, templateId))) throw forbidden();
}

/** A copy needs the rights to create the template again (its organization, its inventory). */
const mayCopy: ObjectAction<WorkflowJobTemplateRow> = (ctx, tx, row) =>
  workflowTemplateAccess.canCreate(ctx, tx, { organization: row.organization_id, ...(row.inventory_id && { inventory: row.inventory_id }) });

export const workflowTemplateActions: Record<string, ObjectAction<WorkflowJobTemplateRow>> = {
  execute: (ctx, tx, row) => hasObjectRole(ctx, tx, 'workflow_job_template', row.id, 'execute_role'),
  administer: (ctx, tx, row) => hasObjectRole(ctx, tx, 'workflow_job_template', row.id, 'admin_role'),
  approve: (ctx, tx, row) => hasObjectRole(ctx, tx, 'workflow_job_template', row.id, 'approval_role'),
  copy: mayCopy,
};

export const workflowTemplateCapabilities: Record<string, Capability<WorkflowJobTemplateRow> | string> = {
  start: (ctx, tx, row, page) => hasObjectRoleOnRow(ctx, tx, 'workflow_job_template', 'execute_role', row, page),
  schedule: 'start',
  copy: (ctx, tx, row) => isSuperuser(ctx) || mayCopy(ctx, tx, row),
};
