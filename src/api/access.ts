import type { Queryable, ResourceRow } from '../db/database.ts';
import type { RequestContext } from './context.ts';
import type { Params } from './sql.ts';

// The policy's types are declared with the resource (src/api/resource.ts), which holds one.
export type { AccessPolicy, Capability, ObjectAction } from './resource.ts';

export const isSuperuser = (ctx: RequestContext) => ctx.user?.isSuperuser === true;
export const seesEverything = (ctx: RequestContext) => ctx.user?.isSuperuser === true || ctx.user?.isSystemAuditor === true;

/** SQL answering the ids of every role the user holds, directly, through a team or by inheritance. */
export function rolesOfUser(userParam: string): string {
  return `SELECT role_ancestors.descendent_id FROM role_ancestors JOIN role_users ON role_users.role_id = role_ancestors.ancestor_id
          WHERE role_users.user_id = ${userParam}`;
}

/** SQL answering the ids of objects of `contentType` on which the user holds one of `roleFields`. */
export function objectsWithRole(contentType: string, roleFields: readonly string[], userParam: string): string {
  const fields = roleFields.map((f) => `'${f}'`).join(', ');
  return `SELECT roles.object_id FROM roles WHERE roles.content_type = '${contentType}' AND roles.role_field IN (${fields})
          AND roles.id IN (${rolesOfUser(userParam)})`;
}

export async function holdsRole(tx: Queryable, userId: number, contentType: string, objectId: number, roleFields: readonly string[]): Promise<boolean> {
  const rows = await tx.query(
    `SELECT 1 FROM roles
     JOIN role_ancestors ON role_ancestors.descendent_id = roles.id
     JOIN role_users ON role_users.role_id = role_ancestors.ancestor_id AND role_users.user_id = $1
     WHERE roles.content_type = $2 AND roles.object_id = $3 AND roles.role_field = ANY($4) LIMIT 1`,
    [userId, contentType, objectId, roleFields],
  );
  return rows.length > 0;
}

/** Whether the caller holds `roleField` on the object; a superuser holds every role. */
export async function hasObjectRole(ctx: RequestContext, tx: Queryable, contentType: string, objectId: number, roleField: string): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!ctx.user) return false;
  return holdsRole(tx, ctx.user.id, contentType, objectId, [roleField]);
}

/** A visibility condition: objects of the resource on which the caller holds `roleField` (read_role by default). */
export function visibleThroughRole(ctx: RequestContext, alias: string, params: Params, contentType: string, roleField = 'read_role'): string | null {
  if (seesEverything(ctx)) return null;
  return `${alias}.id IN (${objectsWithRole(contentType, [roleField], params.add(ctx.user?.id ?? 0))})`;
}

/** Whether the caller holds `roleField` on some object of `contentType` (OPTIONS asks before any object is named). */
export async function holdsRoleSomewhere(ctx: RequestContext, tx: Queryable, contentType: string, roleField: string): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!ctx.user) return false;
  const rows = await tx.query(`SELECT 1 FROM (${objectsWithRole(contentType, [roleField], '$1')}) AS held LIMIT 1`, [ctx.user.id]);
  return rows.length > 0;
}

/**
 * Object ids among `objectIds` on which the user holds one of `roleFields`, in one query (for a
 * page of rows: see hasObjectRoleOnRow).
 */
export async function objectsHoldingRole(
  tx: Queryable,
  userId: number,
  contentType: string,
  roleFields: readonly string[],
  objectIds: readonly number[],
): Promise<Set<number>> {
  if (!objectIds.length) return new Set();
  const rows = await tx.query<{ object_id: number }>(
    `SELECT DISTINCT roles.object_id FROM roles
     JOIN role_ancestors ON role_ancestors.descendent_id = roles.id
     JOIN role_users ON role_users.role_id = role_ancestors.ancestor_id AND role_users.user_id = $1
     WHERE roles.content_type = $2 AND roles.object_id = ANY($3::integer[]) AND roles.role_field = ANY($4)`,
    [userId, contentType, [...new Set(objectIds)], roleFields],
  );
  return new Set(rows.map((r) => r.object_id));
}

const pageRoleLookups = new WeakMap<readonly ResourceRow[], Map<string, { ctx: RequestContext; ids: Promise<Set<number>> }>>();

/**
 * hasObjectRole for the object of `row`, whose id is in `column` (`id` for the row itself). Given
 * the `page` the row is serialized with (see AccessPolicy.canChange), the whole page is looked up
 * in one query shared by its rows; the answer is the same either way.
 */
export function hasObjectRoleOnRow(
  ctx: RequestContext,
  tx: Queryable,
  contentType: string,
  roleField: string,
  row: ResourceRow,
  page?: readonly ResourceRow[],
  column = 'id',
): boolean | Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!ctx.user) return false;
  const objectId = row[column] as number;
  if (!page || !page.includes(row)) return hasObjectRole(ctx, tx, contentType, objectId, roleField);
  let lookups = pageRoleLookups.get(page);
  if (!lookups) pageRoleLookups.set(page, (lookups = new Map()));
  const key = `${contentType}.${roleField}.${column}`;
  let lookup = lookups.get(key);
  if (!lookup || lookup.ctx !== ctx) {
    const ids = page.map((r) => r[column] as number).filter((id) => typeof id === 'number');
    lookup = { ctx, ids: objectsHoldingRole(tx, ctx.user.id, contentType, [roleField], ids) };
    lookups.set(key, lookup);
  }
  return lookup.ids.then((ids) => ids.has(objectId));
}

const enabled = (ctx: RequestContext, key: string) => ctx.service.settings.get<boolean>(key) !== false;

/** ORG_ADMINS_CAN_SEE_ALL_USERS: organization admins and auditors see every user and every team. */
export const orgAdminsSeeAllUsers = (ctx: RequestContext) => enabled(ctx, 'ORG_ADMINS_CAN_SEE_ALL_USERS');

/** MANAGE_ORGANIZATION_AUTH: organization admins create and manage users and teams and their memberships. */
export const manageOrganizationAuth = (ctx: RequestContext) => enabled(ctx, 'MANAGE_ORGANIZATION_AUTH');

/**
 * SQL condition, true when the user administers or audits some organization (with
 * ORG_ADMINS_CAN_SEE_ALL_USERS such a user sees every user and team). Evaluated once per query.
 */
export function administersOrAuditsSomeOrganization(userParam: string): string {
  return `EXISTS (${objectsWithRole('organization', ['admin_role', 'auditor_role'], userParam)})`;
}

/** Per request: whether the caller administers or audits some organization, and whether any tenant exists (see learnCallerFacts). */
const callerFacts = new WeakMap<RequestContext, { administersOrAuditsOrganization: boolean; tenantsExist: boolean }>();

/** AccessPolicy.prepare for the policies that ask seesAllUsersAndTeams: one query per request. */
export async function learnCallerFacts(ctx: RequestContext, db: Queryable): Promise<void> {
  if (!ctx.user || seesEverything(ctx) || callerFacts.has(ctx) || !orgAdminsSeeAllUsers(ctx)) return;
  const [row] = await db.query<{ yes: boolean; tenants: boolean }>(
    `SELECT ${administersOrAuditsSomeOrganization('$1')} AS yes, EXISTS (SELECT 1 FROM tenants) AS tenants`, [ctx.user.id],
  );
  callerFacts.set(ctx, { administersOrAuditsOrganization: row.yes === true, tenantsExist: row.tenants === true });
}

/**
 * Whether the caller sees every user and team through ORG_ADMINS_CAN_SEE_ALL_USERS (he administers
 * or audits some organization): true or false when known for this request, null when it has to be
 * decided in SQL (administersOrAuditsSomeOrganization).
 */
export function seesAllUsersAndTeams(ctx: RequestContext): boolean | null {
  if (!ctx.user || !orgAdminsSeeAllUsers(ctx)) return false;
  const facts = callerFacts.get(ctx);
  return facts ? facts.administersOrAuditsOrganization : null;
}

/**
 * Whether tenants may hide some users and teams from one who sees all the others (docs/tenants.md,
 * "Visibility"): false when this request learned that there is no tenant at all, so lists (and
 * the roles of every team) need no condition then.
 */
export function tenantsMayHide(ctx: RequestContext): boolean {
  return callerFacts.get(ctx)?.tenantsExist !== false;
}
