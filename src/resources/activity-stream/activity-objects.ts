import type { RequestContext } from '../../api/context.ts';
import type { SerializedObject } from '../../api/resource.ts';
import { summaryOf } from '../../api/serialize.ts';
import { ident } from '../../api/sql.ts';
import type { Queryable, ResourceRow } from '../../db/database.ts';
import type { ActivityStreamRow, RoleRow } from '../../db/tables.ts';
import { describeRole } from '../roles/role.resource.ts';

type Summary = Record<string, unknown>;
const key = (type: string, id: number) => `${type}:${id}`;

/** The summaries of the objects a page of entries names, by type and id (what still exists of them). */
export type ActivityObjects = Map<string, Summary>;

function wantedObjects(rows: readonly ActivityStreamRow[]): Map<string, Set<number>> {
  const wanted = new Map<string, Set<number>>();
  const add = (type: string | null, id: number | null) => {
    if (!type || id === null) return;
    if (!wanted.has(type)) wanted.set(type, new Set());
    wanted.get(type)!.add(id);
  };
  for (const row of rows) {
    add(row.object1, row.object1_id);
    add(row.object2, row.object2_id);
  }
  return wanted;
}

/**
 * Loads, in one query per type, the summaries of the objects the entries name: their names as
 * their own summaries show them, and for a role its name and the object it belongs to (as AWX's
 * activity stream summary fields do), so an entry reads "user alice → Admin of Web servers".
 */
export async function loadActivityObjects(db: Queryable, rows: readonly ActivityStreamRow[], ctx: RequestContext): Promise<ActivityObjects> {
  const { resources } = ctx.service;
  const wanted = wantedObjects(rows);
  const found: ActivityObjects = new Map();
  const roleIds = wanted.get('role');
  wanted.delete('role');
  const roles = roleIds ? await db.query<RoleRow>('SELECT * FROM roles WHERE id = ANY($1::integer[])', [[...roleIds]]) : [];
  for (const role of roles) {
    if (!role.content_type || role.object_id === null) continue;
    if (!wanted.has(role.content_type)) wanted.set(role.content_type, new Set());
    wanted.get(role.content_type)!.add(role.object_id);
  }
  for (const [type, ids] of wanted) {
    const resource = resources.find(type);
    if (!resource) continue;
    const objects = await db.query<ResourceRow>(`SELECT * FROM ${ident(resource.table)} WHERE id = ANY($1::integer[])`, [[...ids]]);
    for (const object of objects) found.set(key(type, object.id), summaryOf(resource, object));
  }
  for (const role of roles) {
    const owner = role.content_type && role.object_id !== null ? found.get(key(role.content_type, role.object_id)) : undefined;
    found.set(key('role', role.id), {
      id: role.id,
      role_field: role.role_field,
      ...describeRole(resources, role),
      ...(owner && { resource_name: owner.name ?? owner.username, resource_type: role.content_type, resource_id: role.object_id }),
    });
  }
  return found;
}

/** summary_fields.<type>: the entry's objects of each type, as AWX lists them (object1's first). */
export function addActivitySummaries(row: ActivityStreamRow, out: SerializedObject, objects: ActivityObjects | undefined): void {
  if (!objects) return;
  for (const [type, id] of [[row.object1, row.object1_id], [row.object2, row.object2_id]] as const) {
    if (!type || id === null) continue;
    const summary = objects.get(key(type, id));
    if (!summary) continue;
    const list = (out.summary_fields[type] ??= []) as Summary[];
    if (!list.some((s) => s.id === id)) list.push(summary);
  }
}
