/** Who may see and change the nodes of a workflow (AWX's WorkflowJobTemplateNodeAccess). */
import { hasObjectRole, hasObjectRoleOnRow, isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import type { Queryable } from '../../db/database.ts';
import type { WorkflowJobTemplateNodeRow } from '../../db/tables.ts';
import { mayAdministerWorkflow } from './workflow-access.ts';

/** What using a template of each kind in a node asks of the caller (one entry per node template kind). */
const USE_TEMPLATE: Record<string, (ctx: RequestContext, tx: Queryable, id: number) => Promise<boolean>> = {
  job_template: (ctx, tx, id) => hasObjectRole(ctx, tx, 'job_template', id, 'execute_role'),
  workflow_job_template: (ctx, tx, id) => hasObjectRole(ctx, tx, 'workflow_job_template', id, 'execute_role'),
  project: (ctx, tx, id) => hasObjectRole(ctx, tx, 'project', id, 'update_role'),
  inventory_source: async (ctx, tx, id) => {
    const [source] = await tx.query<{ inventory_id: number }>('SELECT inventory_id FROM inventory_sources WHERE id = $1', [id]);
    return Boolean(source) && hasObjectRole(ctx, tx, 'inventory', source.inventory_id, 'update_role');
  },
  // As AWX's SystemJobTemplateAccess: system jobs are for superusers only.
  system_job_template: async (ctx) => isSuperuser(ctx),
  // Approval templates are made by create_approval_template, for the node's own workflow.
  workflow_approval_template: async (ctx) => isSuperuser(ctx),
};

/** The kind of a unified job template (job_template, project...), or null when there is none with this id. */
export async function templateKind(tx: Queryable, id: number): Promise<string | null> {
  const [row] = await tx.query<{ kind: string }>('SELECT kind FROM unified_job_templates WHERE id = $1', [id]);
  return row?.kind ?? null;
}

/** May the caller put the template in a node? A template that does not exist is left to the reference check. */
export async function mayUseTemplate(ctx: RequestContext, tx: Queryable, id: number): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  const kind = await templateKind(tx, id);
  if (!kind) return true;
  return (await USE_TEMPLATE[kind]?.(ctx, tx, id)) ?? false;
}

export const nodeAccess: AccessPolicy<WorkflowJobTemplateNodeRow> = {
  visible: (ctx, alias, params) =>
    seesEverything(ctx) ? null : `${alias}.workflow_job_template_id IN (${objectsWithRole('workflow_job_template', ['read_role'], params.add(ctx.user?.id ?? 0))})`,
  canCreate: async (ctx, tx, values) => {
    if (isSuperuser(ctx)) return true;
    if (!ctx.user) return false;
    if (typeof values.workflow_job_template !== 'number') return !Object.keys(values).length;
    if (!(await mayAdministerWorkflow(ctx, tx, values.workflow_job_template))) return false;
    return typeof values.unified_job_template !== 'number' || mayUseTemplate(ctx, tx, values.unified_job_template);
  },
  canChange: async (ctx, tx, row, values, page) => {
    if (!(await hasObjectRoleOnRow(ctx, tx, 'workflow_job_template', 'admin_role', row, page, 'workflow_job_template_id'))) return false;
    const changed = values.unified_job_template;
    return typeof changed !== 'number' || changed === row.unified_job_template_id || mayUseTemplate(ctx, tx, changed);
  },
  canDelete: (ctx, tx, row, page) => hasObjectRoleOnRow(ctx, tx, 'workflow_job_template', 'admin_role', row, page, 'workflow_job_template_id'),
  canAttach: (ctx, tx, row) => hasObjectRole(ctx, tx, 'workflow_job_template', row.workflow_job_template_id, 'admin_role'),
};
