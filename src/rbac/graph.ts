import type { Queryable } from '../db/database.ts';

/**
 * Maintenance of the role graph and its closure (role_ancestors). Every change to role_parents
 * goes through here, inside the caller's transaction.
 */

export async function createRole(tx: Queryable, roleField: string, contentType: string, objectId: number): Promise<number> {
  const [{ id }] = await tx.query<{ id: number }>(
    'INSERT INTO roles (role_field, content_type, object_id) VALUES ($1, $2, $3) RETURNING id',
    [roleField, contentType, objectId],
  );
  await tx.query('INSERT INTO role_ancestors (descendent_id, ancestor_id) VALUES ($1, $1)', [id]);
  return id;
}

/** Makes holders of `parentId` hold `roleId` (and everything below it). Answers false if already so. */
export async function addParent(tx: Queryable, roleId: number, parentId: number): Promise<boolean> {
  const [cycle] = await tx.query('SELECT 1 FROM role_ancestors WHERE descendent_id = $1 AND ancestor_id = $2', [parentId, roleId]);
  if (cycle) throw new Error(`role ${parentId} already inherits from role ${roleId}`);
  const inserted = await tx.query('INSERT INTO role_parents (role_id, parent_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1', [roleId, parentId]);
  if (!inserted.length) return false;
  await tx.query(
    `INSERT INTO role_ancestors (descendent_id, ancestor_id)
     SELECT d.descendent_id, a.ancestor_id FROM role_ancestors d, role_ancestors a
     WHERE d.ancestor_id = $1 AND a.descendent_id = $2
     ON CONFLICT DO NOTHING`,
    [roleId, parentId],
  );
  return true;
}

/** Removes one parent link and recomputes what the roles below it inherit. */
export async function removeParent(tx: Queryable, roleId: number, parentId: number): Promise<boolean> {
  const removed = await tx.query('DELETE FROM role_parents WHERE role_id = $1 AND parent_id = $2 RETURNING 1', [roleId, parentId]);
  if (!removed.length) return false;
  const below = await tx.query<{ id: number }>('SELECT descendent_id AS id FROM role_ancestors WHERE ancestor_id = $1', [roleId]);
  await recomputeClosure(tx, below.map((r) => r.id));
  return true;
}

/** Rebuilds the ancestor rows of the given roles from role_parents. */
export async function recomputeClosure(tx: Queryable, roleIds: number[]): Promise<void> {
  if (!roleIds.length) return;
  await tx.query('DELETE FROM role_ancestors WHERE descendent_id = ANY($1::integer[])', [roleIds]);
  await tx.query(
    `WITH RECURSIVE up(descendent_id, ancestor_id) AS (
       SELECT id, id FROM unnest($1::integer[]) AS id
       UNION
       SELECT up.descendent_id, rp.parent_id FROM up JOIN role_parents rp ON rp.role_id = up.ancestor_id)
     INSERT INTO role_ancestors (descendent_id, ancestor_id) SELECT descendent_id, ancestor_id FROM up
     ON CONFLICT DO NOTHING`,
    [roleIds],
  );
}

/** Deletes an object's roles, and takes away from the roles below them what they inherited through them. */
export async function deleteRolesOf(tx: Queryable, contentType: string, objectId: number): Promise<void> {
  const roles = await tx.query<{ id: number }>('SELECT id FROM roles WHERE content_type = $1 AND object_id = $2', [contentType, objectId]);
  if (!roles.length) return;
  const ids = roles.map((r) => r.id);
  const below = await tx.query<{ id: number }>(
    'SELECT DISTINCT descendent_id AS id FROM role_ancestors WHERE ancestor_id = ANY($1::integer[]) AND NOT descendent_id = ANY($1::integer[])',
    [ids],
  );
  await tx.query('DELETE FROM roles WHERE id = ANY($1::integer[])', [ids]);
  await recomputeClosure(tx, below.map((r) => r.id));
}

export async function roleId(tx: Queryable, contentType: string, objectId: number, roleField: string): Promise<number | null> {
  const [row] = await tx.query<{ id: number }>(
    'SELECT id FROM roles WHERE content_type = $1 AND object_id = $2 AND role_field = $3',
    [contentType, objectId, roleField],
  );
  return row?.id ?? null;
}
