import { hasObjectRole, hasObjectRoleOnRow, isSuperuser, objectsWithRole, visibleThroughRole, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import type { Queryable } from '../../db/database.ts';

/** Organization admins and project admins of the organization create projects in it (as AWX). */
async function mayCreateIn(ctx: RequestContext, tx: Queryable, organizationId: unknown): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!ctx.user) return false;
  if (typeof organizationId === 'number') return hasObjectRole(ctx, tx, 'organization', organizationId, 'project_admin_role');
  const rows = await tx.query(`SELECT 1 FROM (${objectsWithRole('organization', ['project_admin_role'], '$1')}) AS administered LIMIT 1`, [ctx.user.id]);
  return rows.length > 0;
}

export const projectAccess: AccessPolicy = {
  visible: (ctx, alias, params) => visibleThroughRole(ctx, alias, params, 'project'),
  canCreate: (ctx, tx, values) => mayCreateIn(ctx, tx, values.organization),
  canChange: async (ctx, tx, row, values, page) => {
    if (!(await hasObjectRoleOnRow(ctx, tx, 'project', 'admin_role', row, page))) return false;
    // Moving a project needs the right to create it in the new organization.
    if (values.organization !== undefined && values.organization !== row.organization_id) return mayCreateIn(ctx, tx, values.organization);
    return true;
  },
  canDelete: (ctx, tx, row, page) => hasObjectRoleOnRow(ctx, tx, 'project', 'admin_role', row, page),
  canAttach: (ctx, tx, row) => hasObjectRoleOnRow(ctx, tx, 'project', 'admin_role', row),
  actions: { update: (ctx, tx, row) => mayUpdateProject(ctx, tx, row.id) },
  // As AWX: a manual project has nothing to start, schedule or copy from.
  capabilities: {
    start: (ctx, tx, row, page) => row.scm_type !== '' && hasObjectRoleOnRow(ctx, tx, 'project', 'update_role', row, page),
    schedule: 'start',
    copy: (ctx, tx, row, page) =>
      row.scm_type !== '' && row.organization_id !== null && hasObjectRoleOnRow(ctx, tx, 'organization', 'project_admin_role', row, page, 'organization_id'),
  },
};

export const mayUpdateProject = (ctx: RequestContext, tx: Queryable, projectId: number) => hasObjectRole(ctx, tx, 'project', projectId, 'update_role');
