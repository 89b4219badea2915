import type { Relation } from './resource.ts';

// Declared with the resource (src/api/resource.ts), whose related lists are relations.
export type { Relation } from './resource.ts';

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
