import type { Queryable, ResourceRow } from '../db/database.ts';
import type { RequestContext } from './context.ts';
import type { Params } from './sql.ts';
import type { Values } from './resource.ts';

/**
 * A resource's access policy: what the caller may see, as SQL, and what the caller may do with
 * one object. The framework consults it on every list, detail, create, update, delete and attach.
 */
export interface AccessPolicy<R extends ResourceRow = ResourceRow> {
  /** A condition over `alias` limiting visible rows, or null when every row is visible. */
  visible(ctx: RequestContext, alias: string, params: Params): string | null;
  canCreate(ctx: RequestContext, tx: Queryable, values: Values): Promise<boolean> | boolean;
  /**
   * For user_capabilities, lists also pass `page`: every row serialized together with this one.
   * A policy that needs a query per row may instead look the whole page up in one query and
   * answer the other rows from it (the answers must be the same).
   */
  canChange(ctx: RequestContext, tx: Queryable, row: R, values: Values, page?: readonly R[]): Promise<boolean> | boolean;
  canDelete(ctx: RequestContext, tx: Queryable, row: R, page?: readonly R[]): Promise<boolean> | boolean;
  /** May the caller link `targetId` to (or unlink it from) this object through `relation`? */
  canAttach(ctx: RequestContext, tx: Queryable, row: R, relation: string, targetId: number, detach: boolean): Promise<boolean> | boolean;
  /**
   * Looks up, once per request, facts about the caller that `visible` may then read synchronously
   * (so it can answer simpler SQL). Called before `visible`; `visible` must be right without it.
   */
  prepare?(ctx: RequestContext, db: Queryable): Promise<void>;
  /**
   * What else may be done with one object, by name, for the routes that name them (launch, update,
   * cancel...). Every policy also has the actions of object-actions.ts (view, change, edit).
   * An action answers false for a plain 403, or throws its own refusal.
   */
  actions?: Readonly<Record<string, ObjectAction<R>>>;
  /**
   * What summary_fields.user_capabilities shows beyond edit (canChange) and delete (canDelete), as
   * AWX's serializer of the resource does (start, schedule, copy, adhoc, use): a check, the name of
   * another capability whose answer it repeats (schedule: 'start'), or false to leave a default
   * out (an instance shows no delete).
   */
  capabilities?: Readonly<Record<string, Capability<R> | string | false>>;
}

/**
 * One capability of one row. Lists pass the `page` of rows serialized together, so a check can
 * look the whole page up at once (hasObjectRoleOnRow).
 */
// Both are a method's type, so that checks of a typed row (R) still serve the framework, which passes plain rows.
export type Capability<R extends ResourceRow = ResourceRow> = { check(ctx: RequestContext, tx: Queryable, row: R, page?: readonly R[]): Promise<boolean> | boolean }['check'];

/** May the caller do this with the (visible) object? */
export type ObjectAction<R extends ResourceRow = ResourceRow> = { check(ctx: RequestContext, tx: Queryable, row: R): Promise<boolean> | boolean }['check'];

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

/** Per request: whether the caller administers or audits some organization (see learnCallerFacts). */
const callerFacts = new WeakMap<RequestContext, { administersOrAuditsOrganization: boolean }>();

/** AccessPolicy.prepare for the policies that ask seesAllUsersAndTeams: one query per request. */
export async function learnCallerFacts(ctx: RequestContext, db: Queryable): Promise<void> {
  if (!ctx.user || seesEverything(ctx) || callerFacts.has(ctx) || !orgAdminsSeeAllUsers(ctx)) return;
  const [row] = await db.query<{ yes: boolean }>(`SELECT ${administersOrAuditsSomeOrganization('$1')} AS yes`, [ctx.user.id]);
  callerFacts.set(ctx, { administersOrAuditsOrganization: row.yes === true });
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
