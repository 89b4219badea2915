import type { Queryable, ResourceRow } from '../db/database.ts';
import type { RequestContext } from './context.ts';

/**
 * A link from one resource (the parent) to a set of another (the target), read as a table
 * expression with a parent column and a target column. Lists, related-path filters and
 * attach/detach are all built from it.
 */
export interface Relation {
  target: string;
  /** FROM clause (a table or a join) linking parents to targets. */
  from: string;
  parentColumn: string;
  targetColumn: string;
  /** Whether POST {id} attaches and {id, disassociate} detaches. */
  attachable: boolean;
  /** For reverse foreign keys: the target field to set when a target is created through this list. */
  createWith?: string;
  /** Further values every target created through this list gets (personal tokens have no application). */
  createValues?: Record<string, unknown>;
  /** For ordered lists: the column of `from` holding each target's place, the list's order unless the query asks another. */
  positionColumn?: string;
  /** Name recorded as object_association in the activity stream. */
  association?: string;
  /** Decides, instead of the parent's access policy, whether the caller may link or unlink (throws 403/400). */
  authorize?(ctx: RequestContext, tx: Queryable, parentId: number, targetId: number, detach: boolean): Promise<void>;
  /**
   * Creates a target through this list when `createWith` cannot say how (a host created in a group
   * belongs to the group's inventory and is linked to the group), inside the request's transaction,
   * checking permission itself. Answers the new row (201), or null when the body named an existing
   * object that was linked instead (204).
   */
  create?(tx: Queryable, ctx: RequestContext, parent: ResourceRow, body: unknown): Promise<ResourceRow | null>;
  attach?(tx: Queryable, parentId: number, targetId: number, ctx: RequestContext): Promise<boolean>;
  detach?(tx: Queryable, parentId: number, targetId: number, ctx: RequestContext): Promise<boolean>;
}

/** Objects of `target` whose foreign key `field` points at the parent (organization -> teams). */
export function reverse(target: string, table: string, column: string, createWith?: string): Relation {
  return { target, from: table, parentColumn: column, targetColumn: 'id', attachable: false, createWith };
}

/** A many-to-many join table with a column for each side. */
export function joinTable(target: string, table: string, parentColumn: string, targetColumn: string): Relation {
  return {
    target,
    from: table,
    parentColumn,
    targetColumn,
    attachable: true,
    association: target,
    async attach(tx, parentId, targetId) {
      const rows = await tx.query(
        `INSERT INTO ${table} (${parentColumn}, ${targetColumn}) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1`,
        [parentId, targetId],
      );
      return rows.length > 0;
    },
    async detach(tx, parentId, targetId) {
      const rows = await tx.query(`DELETE FROM ${table} WHERE ${parentColumn} = $1 AND ${targetColumn} = $2 RETURNING 1`, [parentId, targetId]);
      return rows.length > 0;
    },
  };
}

/** The objects of type `contentType` on which the user (the parent) holds `roleField` (user -> teams). */
export function roleHeldOn(target: string, contentType: string, roleField: string): Relation {
  return {
    target,
    from: `role_users JOIN roles ON roles.id = role_users.role_id AND roles.content_type = '${contentType}' AND roles.role_field = '${roleField}'`,
    parentColumn: 'role_users.user_id',
    targetColumn: 'roles.object_id',
    attachable: false,
  };
}

/** A many-to-many join table keeping the order targets were attached in (an organization's Galaxy credentials). */
export function orderedJoinTable(target: string, table: string, parentColumn: string, targetColumn: string): Relation {
  return {
    ...joinTable(target, table, parentColumn, targetColumn),
    positionColumn: `${table}.position`,
    async attach(tx, parentId, targetId) {
      const rows = await tx.query(
        `INSERT INTO ${table} (${parentColumn}, ${targetColumn}, position)
         SELECT $1, $2, COALESCE(max(position) + 1, 0) FROM ${table} WHERE ${parentColumn} = $1
         ON CONFLICT DO NOTHING RETURNING 1`,
        [parentId, targetId],
      );
      return rows.length > 0;
    },
  };
}
