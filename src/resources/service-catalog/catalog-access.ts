/**
 * Who sees and does what in the service catalog (docs/service-catalog.md#who-may-do-what):
 * members of an organization see its enabled items and submit requests of them; its admins (with
 * execute on the template) manage items and see every request of the organization; approvers
 * decide requests: a superuser, else the members of the item's approver team, else (no team) the
 * organization's admins. System auditors and organization auditors read, and decide nothing.
 */
import { hasObjectRole, holdsRoleSomewhere, isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { ApiError } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Params } from '../../api/sql.ts';
import type { Queryable } from '../../db/database.ts';
import type { ServiceCatalogItemRow, ServiceRequestRow } from '../../db/tables.ts';
import { isOrgAdmin } from '../organizations/organization.resource.ts';

/** SQL: the organizations where the user holds one of these roles. */
const organizationsWith = (roles: readonly string[], user: string) => objectsWithRole('organization', roles, user);

/** SQL: the teams the user is a member of (holds their member_role itself, as /teams/{id}/users/ lists them). */
export const teamsOfMember = (user: string) =>
  `SELECT roles.object_id FROM role_users JOIN roles ON roles.id = role_users.role_id AND roles.content_type = 'team' AND roles.role_field = 'member_role' WHERE role_users.user_id = ${user}`;

const userParam = (ctx: RequestContext, params: Params) => params.add(ctx.user?.id ?? 0);

/** The template an item's values (over its row) point at, with its access policy's resource name. */
function templateOf(values: Values, row: ServiceCatalogItemRow | null): { contentType: string; id: number } | null {
  const job = 'job_template' in values ? values.job_template : row?.job_template_id;
  const workflow = 'workflow_job_template' in values ? values.workflow_job_template : row?.workflow_job_template_id;
  if (typeof job === 'number') return { contentType: 'job_template', id: job };
  if (typeof workflow === 'number') return { contentType: 'workflow_job_template', id: workflow };
  return null;
}

/** Execute on the item's template; a template that does not exist is left to the reference check (400). */
async function mayExecuteTemplate(ctx: RequestContext, tx: Queryable, template: { contentType: string; id: number } | null): Promise<boolean> {
  if (!template || isSuperuser(ctx)) return true;
  const table = template.contentType === 'job_template' ? 'job_templates' : 'workflow_job_templates';
  if (!(await tx.query(`SELECT 1 FROM ${table} WHERE id = $1`, [template.id])).length) return true;
  return hasObjectRole(ctx, tx, template.contentType, template.id, 'execute_role');
}

/** Whether the caller is a member of the organization (its admins are). */
export const isOrgMember = (ctx: RequestContext, tx: Queryable, organizationId: number) => hasObjectRole(ctx, tx, 'organization', organizationId, 'member_role');

/** The statuses in which a request may be deleted: it launched nothing. */
export const DELETABLE_REQUESTS: readonly string[] = ['pending_approval', 'rejected'];

async function mayDeleteRequest(ctx: RequestContext, tx: Queryable, row: ServiceRequestRow): Promise<boolean> {
  return isSuperuser(ctx) || (ctx.user !== null && row.requester_id === ctx.user.id) || isOrgAdmin(ctx, tx, row.organization_id);
}

export const catalogItemAccess: AccessPolicy<ServiceCatalogItemRow> = {
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const user = userParam(ctx, params);
    return `((${alias}.enabled AND ${alias}.organization_id IN (${organizationsWith(['member_role'], user)}))
      OR ${alias}.organization_id IN (${organizationsWith(['admin_role', 'auditor_role'], user)}))`;
  },
  canCreate: async (ctx, tx, values) => {
    if (typeof values.organization !== 'number') return holdsRoleSomewhere(ctx, tx, 'organization', 'admin_role');
    return (await isOrgAdmin(ctx, tx, values.organization)) && mayExecuteTemplate(ctx, tx, templateOf(values, null));
  },
  canChange: async (ctx, tx, row, values) => {
    if (!(await isOrgAdmin(ctx, tx, row.organization_id))) return false;
    if (typeof values.organization === 'number' && values.organization !== row.organization_id && !(await isOrgAdmin(ctx, tx, values.organization))) return false;
    return mayExecuteTemplate(ctx, tx, templateOf(values, row));
  },
  canDelete: (ctx, tx, row) => isOrgAdmin(ctx, tx, row.organization_id),
  canAttach: (ctx, tx, row) => isOrgAdmin(ctx, tx, row.organization_id),
  actions: {
    submit: async (ctx, tx, row) => {
      if (!isSuperuser(ctx) && !(await isOrgMember(ctx, tx, row.organization_id))) return false;
      if (!row.enabled) throw new ApiError(400, { detail: 'This catalog item is disabled: it takes no requests.' });
      return true;
    },
  },
};

/** Whether the caller may approve or reject the request (the item's approvers). */
export async function mayDecide(ctx: RequestContext, tx: Queryable, request: Pick<ServiceRequestRow, 'catalog_item_id' | 'organization_id'>): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!ctx.user) return false;
  const [item] = request.catalog_item_id === null ? [] : await tx.query<Pick<ServiceCatalogItemRow, 'approver_team_id'>>('SELECT approver_team_id FROM service_catalog_items WHERE id = $1', [request.catalog_item_id]);
  if (item?.approver_team_id) return (await tx.query(`SELECT 1 FROM (${teamsOfMember('$1')}) AS teams WHERE object_id = $2`, [ctx.user.id, item.approver_team_id])).length > 0;
  return isOrgAdmin(ctx, tx, request.organization_id);
}

/** SQL: the requests (as `alias`) the caller may decide, whatever their status. */
export function decidableRequests(ctx: RequestContext, alias: string, params: Params): string {
  if (isSuperuser(ctx)) return 'true';
  const user = userParam(ctx, params);
  return `(EXISTS (SELECT 1 FROM service_catalog_items i WHERE i.id = ${alias}.catalog_item_id AND i.approver_team_id IN (${teamsOfMember(user)}))
    OR (NOT EXISTS (SELECT 1 FROM service_catalog_items i WHERE i.id = ${alias}.catalog_item_id AND i.approver_team_id IS NOT NULL)
        AND ${alias}.organization_id IN (${organizationsWith(['admin_role'], user)})))`;
}

export const serviceRequestAccess: AccessPolicy<ServiceRequestRow> = {
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const user = userParam(ctx, params);
    return `(${alias}.requester_id = ${user}
      OR ${alias}.organization_id IN (${organizationsWith(['admin_role', 'auditor_role'], user)})
      OR ${alias}.catalog_item_id IN (SELECT i.id FROM service_catalog_items i WHERE i.approver_team_id IN (${teamsOfMember(user)})))`;
  },
  canCreate: () => false,
  canChange: () => false,
  // The requester withdraws his own; the organization's admins clear any (only pending or rejected ones: beforeDelete).
  canDelete: mayDeleteRequest,
  canAttach: () => false,
  actions: { decide: mayDecide },
  capabilities: {
    delete: async (ctx, tx, row) => DELETABLE_REQUESTS.includes(row.status) && mayDeleteRequest(ctx, tx, row),
    approve: async (ctx, tx, row) => row.status === 'pending_approval' && mayDecide(ctx, tx, row),
  },
};
