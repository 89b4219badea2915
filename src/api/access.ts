import type { Queryable, Row } from '../db/database.ts';
import type { RequestContext } from './context.ts';
import type { Params } from './sql.ts';
import type { Values } from './resource.ts';

/**
 * A resource's access policy: what the caller may see, as SQL, and what the caller may do with
 * one object. The framework consults it on every list, detail, create, update, delete and attach.
 */
export interface AccessPolicy {
  /** A condition over `alias` limiting visible rows, or null when every row is visible. */
  visible(ctx: RequestContext, alias: string, params: Params): string | null;
  canCreate(ctx: RequestContext, tx: Queryable, values: Values): Promise<boolean> | boolean;
  canChange(ctx: RequestContext, tx: Queryable, row: Row, values: Values): Promise<boolean> | boolean;
  canDelete(ctx: RequestContext, tx: Queryable, row: Row): Promise<boolean> | boolean;
  /** May the caller link `targetId` to (or unlink it from) this object through `relation`? */
  canAttach(ctx: RequestContext, tx: Queryable, row: Row, relation: string, targetId: number, detach: boolean): Promise<boolean> | boolean;
}

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
