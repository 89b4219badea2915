import { hasObjectRole, isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { forbidden } from '../../api/errors.ts';
import { ref, text } from '../../api/fields.ts';
import { objectRoles, roleHolders, teamRoles } from '../../rbac/relations.ts';
import { defineResource } from '../../api/resource.ts';
import { isOrgAdmin } from '../organizations/organization.resource.ts';

const teamAccess: AccessPolicy = {
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const me = params.add(ctx.user?.id ?? 0);
    // As AWX: the teams one may read, and every team of the organizations one is a member of.
    return `(${alias}.organization_id IN (${objectsWithRole('organization', ['member_role'], me)})
      OR ${alias}.id IN (${objectsWithRole('team', ['read_role'], me)}))`;
  },
  canCreate: (ctx, tx, values) => (typeof values.organization === 'number' ? isOrgAdmin(ctx, tx, values.organization) : isSuperuser(ctx)),
  canChange: (ctx, tx, row, values) => {
    // A team stays in its organization, whoever asks (as AWX).
    if (values.organization !== undefined && values.organization !== row.organization_id) {
      throw forbidden('Unable to change organization on a team.');
    }
    return hasObjectRole(ctx, tx, 'team', row.id, 'admin_role');
  },
  canDelete: (ctx, tx, row) => hasObjectRole(ctx, tx, 'team', row.id, 'admin_role'),
  canAttach: (ctx, tx, row) => hasObjectRole(ctx, tx, 'team', row.id, 'admin_role'),
};

export const teams = defineResource({
  name: 'team',
  table: 'teams',
  label: 'Team List',
  description: 'Teams group users of one organization so roles can be granted to all of them at once.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    organization: ref('organization', { required: true }),
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description'],
  unique: [['organization', 'name']],
  related: { users: roleHolders('team', 'member_role'), roles: teamRoles, object_roles: objectRoles('team') },
  roles: {
    admin_role: { name: 'Admin', description: 'Can manage all aspects of the team', parents: ['organization.admin_role'] },
    member_role: { name: 'Member', description: 'User is a member of the team', parents: ['admin_role'] },
    read_role: { name: 'Read', description: 'May view settings for the team', parents: ['admin_role', 'member_role', 'organization.auditor_role'] },
  },
  access: teamAccess,
});
