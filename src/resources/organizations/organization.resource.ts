import { hasObjectRole, hasObjectRoleOnRow, isSuperuser, manageOrganizationAuth, visibleThroughRole, type AccessPolicy } from '../../api/access.ts';
import { conflict, forbidden } from '../../api/errors.ts';
import type { RequestContext } from '../../api/context.ts';
import type { Queryable, ResourceRow } from '../../db/database.ts';
import { choice, integer, ref, text } from '../../api/fields.ts';
import { isVisible } from '../../api/list.ts';
import { reverse } from '../../api/relations.ts';
import { objectRoles, roleHolders } from '../../rbac/relations.ts';
import { removeObject } from '../../api/crud.ts';
import { defineResource, type Values } from '../../api/resource.ts';
import { galaxyCredentials, ownedByOrganization } from './organization-relations.ts';
import { relatedFieldCounts, type RelatedCounts } from './related-counts.ts';
import { organizationNotificationLists } from '../notification-templates/attachments.ts';
import type { OrganizationRow } from '../../db/tables.ts';

const ORG_ADMIN = ['admin_role'];

export const ORGANIZATION_ROLES = {
  admin_role: { name: 'Admin', description: 'Can manage all aspects of the organization' },
  execute_role: { name: 'Execute', description: 'May run any executable resources in the organization', parents: ORG_ADMIN },
  project_admin_role: { name: 'Project Admin', description: 'Can manage all projects of the organization', parents: ORG_ADMIN },
  inventory_admin_role: { name: 'Inventory Admin', description: 'Can manage all inventories of the organization', parents: ORG_ADMIN },
  credential_admin_role: { name: 'Credential Admin', description: 'Can manage all credentials of the organization', parents: ORG_ADMIN },
  workflow_admin_role: { name: 'Workflow Admin', description: 'Can manage all workflows of the organization', parents: ORG_ADMIN },
  notification_admin_role: { name: 'Notification Admin', description: 'Can manage all notifications of the organization', parents: ORG_ADMIN },
  job_template_admin_role: { name: 'Job Template Admin', description: 'Can manage all job templates of the organization', parents: ORG_ADMIN },
  execution_environment_admin_role: {
    name: 'Execution Environment Admin',
    description: 'Can manage all execution environments of the organization',
    parents: ORG_ADMIN,
  },
  auditor_role: { name: 'Auditor', description: 'Can view all aspects of the organization' },
  member_role: { name: 'Member', description: 'User is a member of the organization', parents: ORG_ADMIN },
  read_role: {
    name: 'Read',
    description: 'May view settings for the organization',
    parents: [
      'member_role', 'auditor_role', 'execute_role', 'project_admin_role', 'inventory_admin_role', 'workflow_admin_role',
      'notification_admin_role', 'credential_admin_role', 'job_template_admin_role', 'approval_role', 'execution_environment_admin_role',
    ],
  },
  approval_role: { name: 'Approve', description: 'Can approve or deny a workflow approval node', parents: ORG_ADMIN },
};

export const isOrgAdmin = (ctx: RequestContext, tx: Queryable, orgId: number) => hasObjectRole(ctx, tx, 'organization', orgId, 'admin_role');

/** Whether the caller administers the object's organization and, when `values` move it, the new one too. */
export async function administersOrganizations(ctx: RequestContext, tx: Queryable, row: { organization_id: number }, values: Values): Promise<boolean> {
  if (!(await isOrgAdmin(ctx, tx, row.organization_id))) return false;
  return values.organization === undefined || values.organization === row.organization_id || isOrgAdmin(ctx, tx, values.organization as number);
}

/** As AWX: a default execution environment must be one the caller can see. */
const mayUseEnvironment = async (ctx: RequestContext, tx: Queryable, values: Values) =>
  typeof values.default_environment !== 'number' || isVisible(tx, ctx, ctx.service.resources.get('execution_environment'), values.default_environment);

const organizationAccess: AccessPolicy<OrganizationRow> = {
  visible: (ctx, alias, params) => visibleThroughRole(ctx, alias, params, 'organization'),
  canCreate: isSuperuser,
  canChange: async (ctx, tx, row, values, page) =>
    (await hasObjectRoleOnRow(ctx, tx, 'organization', 'admin_role', row, page)) && mayUseEnvironment(ctx, tx, values),
  canDelete: (ctx, tx, row, page) => hasObjectRoleOnRow(ctx, tx, 'organization', 'admin_role', row, page),
  // Users and admins (the relations that attach): MANAGE_ORGANIZATION_AUTH decides whether admins manage memberships.
  canAttach: (ctx, tx, row) => isSuperuser(ctx) || (manageOrganizationAuth(ctx) && isOrgAdmin(ctx, tx, row.id)),
  // As AWX: only a system administrator sets an organization's instance groups.
  actions: { administer_instance_groups: isSuperuser },
};

/** Resources deleted with their organization. */
const OWNED_RESOURCES = ['team', 'o_auth2_application', 'project', 'inventory', 'credential', 'execution_environment'];

export const organizations = defineResource<OrganizationRow>({
  name: 'organization',
  table: 'organizations',
  label: 'Organization List',
  description: 'Organizations are the top-level containers of users, teams and automation content.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false, helpText: 'Name of this organization.' }),
    description: text({ helpText: 'Optional description of this organization.' }),
    max_hosts: integer({ default: 0, min: 0, helpText: 'Maximum number of hosts allowed to be managed by this organization (0 = no limit).' }),
    default_environment: ref('execution_environment', { helpText: 'The default execution environment for jobs run by this organization.' }),
    policy_enforcement: choice(['none', 'warn', 'enforce'], { default: 'none', helpText: 'How launch policy verdicts are applied to this organization.' }),
    webauthn_required: choice([['none', 'Nobody'], ['admins', 'Organization admins'], ['all', 'Everyone in the organization']], {
      default: 'none',
      label: 'WebAuthn required',
      helpText: 'Who must pass a second factor (a registered passkey) after signing in: nobody, the organization\'s admins, or everyone holding a role in it.',
    }),
  },
  namedUrl: ['name'],
  search: ['name', 'description'],
  unique: [['name']],
  related: {
    users: roleHolders('organization', 'member_role'),
    admins: roleHolders('organization', 'admin_role'),
    teams: reverse('team', 'teams', 'organization_id', 'organization'),
    ...ownedByOrganization,
    galaxy_credentials: galaxyCredentials,
    object_roles: objectRoles('organization'),
    ...organizationNotificationLists(),
  },
  roles: ORGANIZATION_ROLES,
  access: organizationAccess,
  prepare: relatedFieldCounts,
  decorate: (row, out, prepared) => {
    (out.related as Record<string, string>).instance_groups = `/api/v2/organizations/${row.id}/instance_groups/`;
    const counts = (prepared as Map<number, RelatedCounts> | undefined)?.get(row.id);
    if (counts) (out.summary_fields as Record<string, unknown>).related_field_counts = counts;
  },
  hooks: {
    /** Teams go with their organization, each with its roles and its own activity record. */
    async beforeDelete(tx, ctx, row) {
      // A tenant's root goes only with its tenant, confirmed and checked for active runs (docs/tenants.md#deleting-a-tenant).
      const [tenant] = await tx.query<{ id: number }>('SELECT id FROM tenants WHERE organization_id = $1', [row.id]);
      if (tenant) {
        if (!isSuperuser(ctx)) throw forbidden("This organization is a tenant's root: only a superuser deletes it, with its tenant.");
        throw conflict(`This organization is the root of tenant ${tenant.id}: delete the tenant instead (DELETE /api/v2/tenants/${tenant.id}/?confirm=true).`);
      }
      // What belongs to the organization goes with it, each with its roles and history (OAuth2
      // applications revoke their tokens as they go).
      for (const name of OWNED_RESOURCES) {
        const owned = ctx.service.resources.get(name);
        for (const object of await tx.query<ResourceRow>(`SELECT * FROM ${owned.table} WHERE organization_id = $1 ORDER BY id FOR UPDATE`, [row.id])) {
          await removeObject(tx, ctx, owned, object);
        }
      }
    },
  },
});

