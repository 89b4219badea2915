import { rolesOfUser, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { integer, text } from '../../api/fields.ts';
import { defineResource, findResource } from '../../api/resource.ts';
import type { Row } from '../../db/database.ts';
import { roleTeams, roleUsers } from '../../rbac/relations.ts';

const never = () => false;

const SYSTEM_ROLES: Record<string, { name: string; description: string }> = {
  system_administrator: { name: 'System Administrator', description: 'Can manage all aspects of the system' },
  system_auditor: { name: 'System Auditor', description: 'Can view all aspects of the system' },
};

const roleAccess: AccessPolicy = {
  // The system roles, the roles one holds, and the roles of every object one may read.
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const mine = rolesOfUser(params.add(ctx.user?.id ?? 0));
    return `(${alias}.singleton_name IS NOT NULL OR ${alias}.id IN (${mine}) OR EXISTS (
      SELECT 1 FROM roles readable WHERE readable.content_type = ${alias}.content_type AND readable.object_id = ${alias}.object_id
        AND readable.role_field = 'read_role' AND readable.id IN (${mine})))`;
  },
  canCreate: never,
  canChange: never,
  canDelete: never,
  canAttach: never,
};

/** Name and description of a role, from the declaration of the resource it belongs to. */
export function describeRole(row: Row): { name: string; description: string } {
  if (row.singleton_name) return SYSTEM_ROLES[row.singleton_name] ?? { name: row.singleton_name, description: '' };
  const owner = row.content_type ? findResource(row.content_type) : undefined;
  return owner?.roles[row.role_field] ?? { name: row.role_field, description: '' };
}

export const roles = defineResource({
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
  decorate(row, out) {
    Object.assign(out, describeRole(row));
    if (row.content_type && row.object_id !== null) {
      const owner = findResource(row.content_type);
      if (owner) {
        out.related[row.content_type] = owner.detailPath(row.object_id);
        out.summary_fields.resource_type = row.content_type;
        out.summary_fields.resource_type_display_name = owner.label.replace(/ List$/, '');
        out.summary_fields.resource_id = row.object_id;
      }
    }
  },
});
