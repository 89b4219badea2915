import { holdsRole, isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { forbidden } from '../../api/errors.ts';
import { ref, text } from '../../api/fields.ts';
import { roleHolders } from '../../api/relations.ts';
import { defineResource } from '../../api/resource.ts';
import { isOrgAdmin, ORGANIZATION_VIEW_ROLES } from '../organizations/organization.resource.ts';

const teamAccess: AccessPolicy = {
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const me = params.add(ctx.user?.id ?? 0);
    return `(${alias}.organization_id IN (${objectsWithRole('organization', ORGANIZATION_VIEW_ROLES, me)})
      OR ${alias}.id IN (${objectsWithRole('team', ['admin_role', 'member_role', 'read_role'], me)}))`;
  },
  canCreate: (ctx, tx, values) => (typeof values.organization === 'number' ? isOrgAdmin(ctx, tx, values.organization) : isSuperuser(ctx)),
  canChange: (ctx, tx, row, values) => {
    // A team stays in its organization, whoever asks (as AWX).
    if (values.organization !== undefined && values.organization !== row.organization_id) {
      throw forbidden('Unable to change organization on a team.');
    }
    return isOrgAdmin(ctx, tx, row.organization_id);
  },
  canDelete: (ctx, tx, row) => isOrgAdmin(ctx, tx, row.organization_id),
  canAttach: async (ctx, tx, row) =>
    (await isOrgAdmin(ctx, tx, row.organization_id)) || (ctx.user !== null && (await holdsRole(tx, ctx.user.id, 'team', row.id, ['admin_role']))),
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
  related: { users: roleHolders('team', 'member_role') },
  roles: {
    admin_role: { name: 'Admin', description: 'Can manage all aspects of the team' },
    member_role: { name: 'Member', description: 'User is a member of the team' },
    read_role: { name: 'Read', description: 'May view settings for the team' },
  },
  access: teamAccess,
});
