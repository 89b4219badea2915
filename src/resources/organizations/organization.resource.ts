import { holdsRole, isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { choice, integer, text } from '../../api/fields.ts';
import { reverse, roleHolders } from '../../api/relations.ts';
import { removeObject } from '../../api/crud.ts';
import { defineResource, getResource } from '../../api/resource.ts';

export const ORGANIZATION_ROLES = {
  admin_role: { name: 'Admin', description: 'Can manage all aspects of the organization' },
  execute_role: { name: 'Execute', description: 'May run any executable resources in the organization' },
  project_admin_role: { name: 'Project Admin', description: 'Can manage all projects of the organization' },
  inventory_admin_role: { name: 'Inventory Admin', description: 'Can manage all inventories of the organization' },
  credential_admin_role: { name: 'Credential Admin', description: 'Can manage all credentials of the organization' },
  workflow_admin_role: { name: 'Workflow Admin', description: 'Can manage all workflows of the organization' },
  notification_admin_role: { name: 'Notification Admin', description: 'Can manage all notifications of the organization' },
  job_template_admin_role: { name: 'Job Template Admin', description: 'Can manage all job templates of the organization' },
  execution_environment_admin_role: { name: 'Execution Environment Admin', description: 'Can manage all execution environments of the organization' },
  auditor_role: { name: 'Auditor', description: 'Can view all aspects of the organization' },
  member_role: { name: 'Member', description: 'User is a member of the organization' },
  read_role: { name: 'Read', description: 'May view settings for the organization' },
  approval_role: { name: 'Approve', description: 'Can approve or deny a workflow approval node' },
};

/** Roles through which a user belongs to an organization and sees it. */
export const ORGANIZATION_VIEW_ROLES = ['admin_role', 'auditor_role', 'member_role', 'read_role'];

const isOrgAdmin = async (ctx: Parameters<AccessPolicy['canDelete']>[0], tx: Parameters<AccessPolicy['canDelete']>[1], orgId: number) =>
  isSuperuser(ctx) || (ctx.user !== null && (await holdsRole(tx, ctx.user.id, 'organization', orgId, ['admin_role'])));

const organizationAccess: AccessPolicy = {
  visible: (ctx, alias, params) =>
    seesEverything(ctx) ? null : `${alias}.id IN (${objectsWithRole('organization', ORGANIZATION_VIEW_ROLES, params.add(ctx.user?.id ?? 0))})`,
  canCreate: isSuperuser,
  canChange: (ctx, tx, row) => isOrgAdmin(ctx, tx, row.id),
  canDelete: isSuperuser,
  canAttach: (ctx, tx, row, relation) => (relation === 'admins' ? isSuperuser(ctx) : isOrgAdmin(ctx, tx, row.id)),
};

export const organizations = defineResource({
  name: 'organization',
  table: 'organizations',
  label: 'Organization List',
  description: 'Organizations are the top-level containers of users, teams and automation content.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false, helpText: 'Name of this organization.' }),
    description: text({ helpText: 'Optional description of this organization.' }),
    max_hosts: integer({ default: 0, min: 0, helpText: 'Maximum number of hosts allowed to be managed by this organization (0 = no limit).' }),
    policy_enforcement: choice(['none', 'warn', 'enforce'], { default: 'none', helpText: 'How launch policy verdicts are applied to this organization.' }),
  },
  namedUrl: ['name'],
  search: ['name', 'description'],
  unique: [['name']],
  related: {
    users: roleHolders('organization', 'member_role'),
    admins: roleHolders('organization', 'admin_role'),
    teams: reverse('team', 'teams', 'organization_id', 'organization'),
  },
  roles: ORGANIZATION_ROLES,
  access: organizationAccess,
  hooks: {
    /** Teams go with their organization, each with its roles and its own activity record. */
    async beforeDelete(tx, ctx, row) {
      const teams = getResource('team');
      for (const team of await tx.query('SELECT * FROM teams WHERE organization_id = $1 ORDER BY id FOR UPDATE', [row.id])) {
        await removeObject(tx, ctx, teams, team);
      }
    },
  },
});

export { isOrgAdmin };
