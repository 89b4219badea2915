import { isSuperuser, type AccessPolicy } from '../../api/access.ts';
import { ApiError } from '../../api/errors.ts';
import { boolean, json, text } from '../../api/fields.ts';
import { reverse } from '../../api/relations.ts';
import { defineResource } from '../../api/resource.ts';
import type { RoleDefinitionRow } from '../../db/tables.ts';
import { resolveDefinition } from '../../rbac/role-definition-check.ts';
import { MANAGED_DEFINITIONS } from '../../rbac/role-definitions.ts';
import { revokeDefinitionAssignments } from './assignments.ts';

/** DAB: every user reads role definitions; superusers create, change and delete the custom ones. */
const roleDefinitionAccess: AccessPolicy<RoleDefinitionRow> = {
  visible: () => null,
  canCreate: isSuperuser,
  canChange: (ctx, _tx, row) => isSuperuser(ctx) && !row.managed,
  canDelete: (ctx, _tx, row) => isSuperuser(ctx) && !row.managed,
  canAttach: () => false,
};

const permissionsOf = (row: RoleDefinitionRow) =>
  MANAGED_DEFINITIONS.find((d) => d.resource === row.resource && d.roleField === row.role_field)?.permissions ?? [];

export const roleDefinitions = defineResource<RoleDefinitionRow>({
  name: 'role_definition',
  table: 'role_definitions',
  label: 'Role Definition List',
  description: 'Role definitions (django-ansible-base): the permissions a role gives on one object; each is one of Drover\'s object roles.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    permissions: json({ required: true, default: [], helpText: 'Permissions like awx.view_inventory; they must be those of one of the object\'s roles.' }),
    content_type: text({ writeOnce: true, nullable: true, helpText: 'The type of resource this applies to, like awx.inventory.' }),
    managed: boolean({ readOnly: true, helpText: 'Managed by the service: cannot be changed or deleted.' }),
  },
  search: ['name', 'description'],
  ordering: 'id',
  unique: [['name']],
  related: {
    user_assignments: reverse('role_user_assignment', 'role_user_assignments', 'role_definition_id'),
    team_assignments: reverse('role_team_assignment', 'role_team_assignments', 'role_definition_id'),
  },
  access: roleDefinitionAccess,
  hooks: {
    async beforeWrite(tx, _ctx, values, existing) {
      if (existing?.managed) throw new ApiError(400, { detail: 'Role is managed by the system' });
      if (existing && values.permissions === undefined) return;
      const { spec, contentType, permissions } = resolveDefinition(values.content_type ?? existing?.content_type, values.permissions);
      if (existing && (existing.resource !== spec.resource || existing.role_field !== spec.roleField)) {
        const [used] = await tx.query('SELECT 1 FROM role_user_assignments WHERE role_definition_id = $1 UNION ALL SELECT 1 FROM role_team_assignments WHERE role_definition_id = $1 LIMIT 1', [existing.id]);
        if (used) throw new ApiError(400, { permissions: ['The permissions of a role definition in use can only change to an equal set; remove its assignments first.'] });
      }
      values.content_type = contentType;
      values.permissions = permissions;
    },
    async afterWrite(tx, _ctx, row) {
      const { spec } = resolveDefinition(row.content_type, row.permissions);
      await tx.query('UPDATE role_definitions SET resource = $2, role_field = $3 WHERE id = $1', [row.id, spec.resource, spec.roleField]);
    },
    // DAB deletes a definition's assignments with it: the grants made through it are taken away.
    beforeDelete: (tx, ctx, row) => revokeDefinitionAssignments(tx, ctx, row.id),
  },
  decorate(row, out) {
    const own = row.permissions as string[];
    out.permissions = own.length ? own : permissionsOf(row);
  },
});
