import { hasObjectRole, hasObjectRoleOnRow, isSuperuser, objectsWithRole, visibleThroughRole, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { ExecutionEnvironmentRow, JobTemplateRow, ProjectRow } from '../../db/tables.ts';

const exists = async (tx: Queryable, table: string, id: number) => (await tx.query(`SELECT 1 FROM ${table} WHERE id = $1`, [id])).length > 0;

/** Whether the caller administers job templates of some organization (what OPTIONS asks before any body). */
async function administersSomeTemplates(ctx: RequestContext, tx: Queryable): Promise<boolean> {
  if (!ctx.user) return false;
  const rows = await tx.query(`SELECT 1 FROM (${objectsWithRole('organization', ['job_template_admin_role'], '$1')}) AS administered LIMIT 1`, [ctx.user.id]);
  return rows.length > 0;
}

/**
 * Using a project in a template: job_template_admin_role on its organization and its use_role.
 * A project that does not exist is left to the reference check (400).
 */
async function mayUseProject(ctx: RequestContext, tx: Queryable, projectId: number): Promise<boolean> {
  const [project] = await tx.query<Pick<ProjectRow, 'organization_id'>>('SELECT organization_id FROM projects WHERE id = $1', [projectId]);
  if (!project) return true;
  if (project.organization_id === null || !(await hasObjectRole(ctx, tx, 'organization', project.organization_id, 'job_template_admin_role'))) return false;
  return hasObjectRole(ctx, tx, 'project', projectId, 'use_role');
}

async function mayUseInventory(ctx: RequestContext, tx: Queryable, inventoryId: number): Promise<boolean> {
  if (!(await exists(tx, 'inventories', inventoryId))) return true;
  return hasObjectRole(ctx, tx, 'inventory', inventoryId, 'use_role');
}

/** What a new template (or the changed references of one) asks of the caller beyond the template itself. */
async function mayUseReferences(ctx: RequestContext, tx: Queryable, values: Values, existing: JobTemplateRow | null): Promise<boolean> {
  if (typeof values.project === 'number' && values.project !== existing?.project_id && !(await mayUseProject(ctx, tx, values.project))) return false;
  if (typeof values.inventory === 'number' && values.inventory !== existing?.inventory_id && !(await mayUseInventory(ctx, tx, values.inventory))) return false;
  if (typeof values.execution_environment === 'number' && values.execution_environment !== existing?.execution_environment_id) {
    // Any execution environment the caller can see may be used, as AWX.
    const [ee] = await tx.query<Pick<ExecutionEnvironmentRow, 'organization_id'>>('SELECT organization_id FROM execution_environments WHERE id = $1', [values.execution_environment]);
    if (ee?.organization_id && !(await hasObjectRole(ctx, tx, 'organization', ee.organization_id, 'read_role'))) return false;
  }
  return true;
}

export const jobTemplateAccess: AccessPolicy<JobTemplateRow> = {
  visible: (ctx, alias, params) => visibleThroughRole(ctx, alias, params, 'job_template'),
  canCreate: async (ctx, tx, values) => {
    if (isSuperuser(ctx)) return true;
    if (!ctx.user) return false;
    if (typeof values.project !== 'number') return administersSomeTemplates(ctx, tx);
    return mayUseReferences(ctx, tx, values, null);
  },
  canChange: async (ctx, tx, row, values, page) => {
    if (!(await hasObjectRoleOnRow(ctx, tx, 'job_template', 'admin_role', row, page))) return false;
    return isSuperuser(ctx) || mayUseReferences(ctx, tx, values, row);
  },
  canDelete: (ctx, tx, row, page) => hasObjectRoleOnRow(ctx, tx, 'job_template', 'admin_role', row, page),
  canAttach: (ctx, tx, row) => hasObjectRoleOnRow(ctx, tx, 'job_template', 'admin_role', row),
};

export const mayExecute = (ctx: RequestContext, tx: Queryable, templateId: number) => hasObjectRole(ctx, tx, 'job_template', templateId, 'execute_role');

export async function assertTemplateAdmin(ctx: RequestContext, tx: Queryable, templateId: number): Promise<void> {
  if (!(await hasObjectRole(ctx, tx, 'job_template', templateId, 'admin_role'))) throw forbidden();
}
