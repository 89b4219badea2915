import { rolesOfUser, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { integer, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import type { ResourceSet, RequestContext } from '../../api/context.ts';
import { ident } from '../../api/sql.ts';
import type { Queryable } from '../../db/database.ts';
import { roleTeams, roleUsers } from '../../rbac/relations.ts';
import type { RoleRow } from '../../db/tables.ts';

const never = () => false;

const SYSTEM_ROLES: Record<string, { name: string; description: string }> = {
  system_administrator: { name: 'System Administrator', description: 'Can manage all aspects of the system' },
  system_auditor: { name: 'System Auditor', description: 'Can view all aspects of the system' },
};

const roleAccess: AccessPolicy<RoleRow> = {
  // The system roles, the roles one holds, and the roles of every object one may see (by the
  // access policy of the object's resource, so an organization's members see the roles of its teams).
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const me = params.add(ctx.user?.id ?? 0);
    // One IN over a union of small sets lets the database start from them; a resource whose every
    // object the caller sees adds its whole content type instead.
    const sets = [`SELECT system_role.id FROM roles system_role WHERE system_role.singleton_name IS NOT NULL`, rolesOfUser(me)];
    const everyRoleOf: string[] = [];
    for (const resource of ctx.service.resources) {
      if (!Object.keys(resource.roles).length) continue;
      const inner = `role_object_${resource.name}`;
      const condition = resource.access.visible(ctx, inner, params);
      if (condition === null) everyRoleOf.push(`${alias}.content_type = '${resource.name}'`);
      else {
        sets.push(`SELECT object_role.id FROM roles object_role WHERE object_role.content_type = '${resource.name}'
          AND object_role.object_id IN (SELECT ${inner}.id FROM ${ident(resource.table)} ${inner} WHERE ${condition})`);
      }
    }
    return `(${[`${alias}.id IN (${sets.join(' UNION ALL ')})`, ...everyRoleOf].join(' OR ')})`;
  },
  // The visibility of the objects' resources is part of this one's.
  prepare: async (ctx, db) => {
    for (const resource of ctx.service.resources) if (Object.keys(resource.roles).length) await resource.access.prepare?.(ctx, db);
  },
  canCreate: never,
  canChange: never,
  canDelete: never,
  canAttach: never,
};

/** Name and description of a role, from the declaration of the resource (of `resources`) it belongs to. */
export function describeRole(resources: ResourceSet, row: Pick<RoleRow, 'singleton_name' | 'content_type' | 'role_field'>): { name: string; description: string } {
  if (row.singleton_name) return SYSTEM_ROLES[row.singleton_name] ?? { name: row.singleton_name, description: '' };
  const owner = row.content_type ? resources.find(row.content_type) : undefined;
  return owner?.roles[row.role_field] ?? { name: row.role_field, description: '' };
}

const objectKey = (contentType: string, objectId: number) => `${contentType}:${objectId}`;

/** What a page of roles shows of the objects they belong to: their names (one query per content type) and resources. */
interface RoleObjects {
  names: Map<string, string>;
  resources: ResourceSet;
}

async function roleObjects(db: Queryable, rows: readonly RoleRow[], ctx: RequestContext): Promise<RoleObjects> {
  const { resources } = ctx.service;
  const wanted = new Map<string, Set<number>>();
  for (const row of rows) {
    if (!row.content_type || row.object_id === null) continue;
    if (!wanted.has(row.content_type)) wanted.set(row.content_type, new Set());
    wanted.get(row.content_type)!.add(row.object_id);
  }
  const names = new Map<string, string>();
  for (const [contentType, ids] of wanted) {
    const owner = resources.find(contentType);
    const column = owner?.fields.name ? owner.fields.name.column : owner?.fields.username ? owner.fields.username.column : null;
    if (!owner || !column) continue;
    const found = await db.query<{ id: number; name: string }>(`SELECT id, ${ident(column)} AS name FROM ${ident(owner.table)} WHERE id = ANY($1::integer[])`, [[...ids]]);
    for (const row of found) names.set(objectKey(contentType, row.id), String(row.name));
  }
  return { names, resources };
}

export const roles = defineResource<RoleRow>({
  name: 'role',
  table: 'roles',
  label: 'Role List',
  description: 'Roles grant users and teams access to one object, or to the whole system.',
  untracked: true,
  fields: {
    role_field: text({ readOnly: true, helpText: 'Which role of the object this is (admin_role, member_role, ...).' }),
    content_type: text({ readOnly: true, nullable: true, helpText: 'Type of the object the role belongs to; null for system roles.' }),
    object_id: integer({ readOnly: true, nullable: true, helpText: 'Id of the object the role belongs to.' }),
    singleton_name: text({ readOnly: true, nullable: true, helpText: 'Name of a system role.' }),
  },
  search: ['role_field', 'content_type', 'singleton_name'],
  related: { users: roleUsers, teams: roleTeams },
  access: roleAccess,
  operations: { create: false, update: false, delete: false },
  prepare: roleObjects,
  decorate(row, out, prepared) {
    const { names, resources } = prepared as RoleObjects;
    Object.assign(out, describeRole(resources, row));
    if (row.content_type && row.object_id !== null) {
      const owner = resources.find(row.content_type);
      if (owner) {
        out.related[row.content_type] = owner.detailPath(row.object_id);
        const name = names.get(objectKey(row.content_type, row.object_id));
        if (name !== undefined) out.summary_fields.resource_name = name;
        out.summary_fields.resource_type = row.content_type;
        out.summary_fields.resource_type_display_name = owner.label.replace(/ List$/, '');
        out.summary_fields.resource_id = row.object_id;
      }
    }
  },
});
