import type { Queryable, ResourceRow } from '../db/database.ts';
import type { Resource } from '../api/resource.ts';
import { addParent, createRole, removeParent, roleId } from './graph.ts';

/**
 * A role declared on a resource. `parents` name the roles whose holders also hold this one:
 * 'admin_role' (the same object) or 'organization.admin_role' (the role of the object a reference
 * field points to).
 */
export interface RoleDeclaration {
  name: string;
  description: string;
  parents?: string[];
}

interface ParentSpec {
  field: string | null;
  roleField: string;
}

const parse = (spec: string): ParentSpec => {
  const dot = spec.indexOf('.');
  return dot < 0 ? { field: null, roleField: spec } : { field: spec.slice(0, dot), roleField: spec.slice(dot + 1) };
};

/** The role id a parent spec names for one row, or null when the reference is empty. */
async function parentRoleId(tx: Queryable, resource: Resource, row: ResourceRow, spec: ParentSpec): Promise<number | null> {
  if (!spec.field) return roleId(tx, resource.name, row.id, spec.roleField);
  const field = resource.allFields[spec.field];
  const target = row[field.column];
  // A reference column holds an id or null.
  return typeof target !== 'number' ? null : roleId(tx, field.ref!, target, spec.roleField);
}

/** Creates the object's roles, then links each to its parents. */
export async function createObjectRoles(tx: Queryable, resource: Resource, row: ResourceRow): Promise<void> {
  const ids: Record<string, number> = {};
  for (const roleField of Object.keys(resource.roles)) ids[roleField] = await createRole(tx, roleField, resource.name, row.id);
  for (const [roleField, decl] of Object.entries(resource.roles)) {
    for (const spec of (decl.parents ?? []).map(parse)) {
      const parent = await parentRoleId(tx, resource, row, spec);
      if (parent !== null) await addParent(tx, ids[roleField], parent);
    }
  }
}

/** After an update: when a reference that roles inherit through changed, move the links. */
export async function syncObjectRoles(tx: Queryable, resource: Resource, row: ResourceRow, existing: ResourceRow): Promise<void> {
  for (const [roleField, decl] of Object.entries(resource.roles)) {
    for (const spec of (decl.parents ?? []).map(parse)) {
      if (!spec.field) continue;
      const column = resource.allFields[spec.field].column;
      if (row[column] === existing[column]) continue;
      const id = await roleId(tx, resource.name, row.id, roleField);
      if (id === null) continue;
      const before = await parentRoleId(tx, resource, existing, spec);
      const after = await parentRoleId(tx, resource, row, spec);
      if (before !== null) await removeParent(tx, id, before);
      if (after !== null) await addParent(tx, id, after);
    }
  }
}
