import { outsideOtherTenants } from '../../api/tenant-boundary.ts';
import {
  administersOrAuditsSomeOrganization,
  hasObjectRoleOnRow,
  isSuperuser,
  learnCallerFacts,
  manageOrganizationAuth,
  objectsWithRole,
  seesAllUsersAndTeams,
  tenantsMayHide,
  seesEverything,
  type AccessPolicy,
} from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import type { Queryable, ResourceRow } from '../../db/database.ts';
import type { TeamRow } from '../../db/tables.ts';
import { forbidden } from '../../api/errors.ts';
import { ref, text } from '../../api/fields.ts';
import { objectRoles, readByTeam, roleHolders, teamRoles } from '../../rbac/relations.ts';
import { defineResource } from '../../api/resource.ts';
import { isOrgAdmin } from '../organizations/organization.resource.ts';

/** Team admins manage the team (organization admins are admins of its teams); with MANAGE_ORGANIZATION_AUTH off, superusers only. */
const managesTeam = (ctx: RequestContext, tx: Queryable, row: ResourceRow, page?: readonly ResourceRow[]) =>
  isSuperuser(ctx) || (manageOrganizationAuth(ctx) && hasObjectRoleOnRow(ctx, tx, 'team', 'admin_role', row, page));

const teamAccess: AccessPolicy = {
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    // As AWX: the teams one may read, and every team of the organizations one is a member of;
    // with ORG_ADMINS_CAN_SEE_ALL_USERS, every team for organization admins and auditors, except
    // the teams of tenants they neither administer nor audit (docs/tenants.md, "Isolation").
    const all = seesAllUsersAndTeams(ctx);
    // Without tenants, one who sees all sees every one: no condition (and no parameter) at all.
    if (all === true && !tenantsMayHide(ctx)) return null;
    const me = params.add(ctx.user?.id ?? 0);
    // One IN over a union (rather than an OR of two) lets the database start from the few visible teams.
    const own = `${alias}.id IN (
      SELECT member_team.id FROM teams member_team WHERE member_team.organization_id IN (${objectsWithRole('organization', ['member_role'], me)})
      UNION ALL ${objectsWithRole('team', ['read_role'], me)})`;
    if (all === false) return own;
    const outsideTenants = outsideOtherTenants(`${alias}.organization_id`, me);
    return all === true ? `(${outsideTenants} OR ${own})` : `((${administersOrAuditsSomeOrganization(me)} AND ${outsideTenants}) OR ${own})`;
  },
  prepare: learnCallerFacts,
  canCreate: async (ctx, tx, values) => {
    if (isSuperuser(ctx)) return true;
    if (!ctx.user || !manageOrganizationAuth(ctx)) return false;
    if (typeof values.organization === 'number') return isOrgAdmin(ctx, tx, values.organization);
    // No organization named yet (OPTIONS, or a body without one): whether the caller may create a team anywhere.
    return (await tx.query(`SELECT 1 FROM (${objectsWithRole('organization', ['admin_role'], '$1')}) AS administered LIMIT 1`, [ctx.user.id])).length > 0;
  },
  canChange: (ctx, tx, row, values, page) => {
    // A team stays in its organization, whoever asks (as AWX).
    if (values.organization !== undefined && values.organization !== row.organization_id) {
      throw forbidden('Unable to change organization on a team.');
    }
    return managesTeam(ctx, tx, row, page);
  },
  canDelete: (ctx, tx, row, page) => managesTeam(ctx, tx, row, page),
  canAttach: (ctx, tx, row) => managesTeam(ctx, tx, row),
};

export const teams = defineResource<TeamRow>({
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
  related: {
    users: roleHolders('team', 'member_role'),
    roles: teamRoles,
    projects: readByTeam('project', 'project'),
    // Created here for the team (AWX's TeamCredentialsList): of the team's organization, its admins administer it, its members use it.
    credentials: { ...readByTeam('credential', 'credential'), createWith: 'team', createValues: { organization: null } },
    object_roles: objectRoles('team'),
  },
  roles: {
    admin_role: { name: 'Admin', description: 'Can manage all aspects of the team', parents: ['organization.admin_role'] },
    member_role: { name: 'Member', description: 'User is a member of the team', parents: ['admin_role'] },
    read_role: { name: 'Read', description: 'May view settings for the team', parents: ['admin_role', 'member_role', 'organization.auditor_role'] },
  },
  access: teamAccess,
});
