/**
 * The RBAC vocabulary of django-ansible-base as AWX 24.6 shows it (/api/v2/role_definitions/):
 * models named by content types like `awx.inventory`, permissions like `awx.use_inventory`, and the
 * role definitions AWX manages (ANSIBLE_BASE_ROLE_PRECREATE: "{Model} Admin", "{Model} {Action}",
 * "Organization {Model} Admin", "Organization Admin"), each mapped onto the Drover object role that
 * grants the same. Drover's roles are fixed per resource, so a definition is one of them; a custom
 * definition is valid only when its permissions equal those of one of them (docs/role-definitions.md).
 */

export interface PermissionModel {
  /** The Drover resource whose objects these are. */
  resource: string;
  /** DAB's prefix: `shared` for models shared across the platform, `awx` for the others. */
  prefix: 'shared' | 'awx';
  /** The Django model name (`jobtemplate`) and class name (`JobTemplate`). */
  model: string;
  className: string;
  /** Actions beyond add/change/delete/view (the model's Meta.permissions in AWX). */
  special: readonly string[];
  /** Models whose objects belong to an organization: an organization role may carry their permissions. */
  organizationChild: boolean;
}

export const PERMISSION_MODELS: readonly PermissionModel[] = [
  { resource: 'credential', prefix: 'awx', model: 'credential', className: 'Credential', special: ['use'], organizationChild: true },
  { resource: 'instance_group', prefix: 'awx', model: 'instancegroup', className: 'InstanceGroup', special: ['use'], organizationChild: false },
  { resource: 'inventory', prefix: 'awx', model: 'inventory', className: 'Inventory', special: ['use', 'adhoc', 'update'], organizationChild: true },
  { resource: 'job_template', prefix: 'awx', model: 'jobtemplate', className: 'JobTemplate', special: ['execute'], organizationChild: true },
  { resource: 'organization', prefix: 'shared', model: 'organization', className: 'Organization', special: ['member', 'audit'], organizationChild: false },
  { resource: 'project', prefix: 'awx', model: 'project', className: 'Project', special: ['use', 'update'], organizationChild: true },
  { resource: 'team', prefix: 'shared', model: 'team', className: 'Team', special: ['member'], organizationChild: true },
  { resource: 'workflow_job_template', prefix: 'awx', model: 'workflowjobtemplate', className: 'WorkflowJobTemplate', special: ['execute', 'approve'], organizationChild: true },
];

export const contentTypeOf = (m: PermissionModel) => `${m.prefix}.${m.model}`;

/** Every codename of a model; AWX removed add_organization (only superusers create organizations). */
export function codenamesOf(m: PermissionModel): string[] {
  const actions = [...(m.resource === 'organization' ? [] : ['add']), 'change', 'delete', 'view', ...m.special];
  return actions.map((action) => `${action}_${m.model}`);
}

const qualified = (m: PermissionModel, codenames: readonly string[]) => codenames.map((c) => `${m.prefix}.${c}`);

export const modelOfResource = (resource: string) => PERMISSION_MODELS.find((m) => m.resource === resource);
const byModel = (model: string) => PERMISSION_MODELS.find((m) => m.model === model)!;

/** DAB's permissions_allowed_for_role: the model's own (less add), and every codename of its child models. */
export function allowedPermissions(m: PermissionModel): string[] {
  const own = qualified(m, codenamesOf(m).filter((c) => !c.startsWith('add_')));
  if (m.resource !== 'organization') return own;
  return [...own, ...PERMISSION_MODELS.filter((c) => c.organizationChild).flatMap((c) => qualified(c, codenamesOf(c))), ...Object.keys(ORGANIZATION_ONLY).flatMap(orgOnlyPerms)];
}

const perms = (model: string, actions: readonly string[]) => qualified(byModel(model), actions.map((a) => `${a}_${model}`));
const childAdmin = (model: string) => [...perms('organization', ['view']), ...qualified(byModel(model), codenamesOf(byModel(model)))];

export interface DefinitionSpec {
  name: string;
  description: string;
  resource: string;
  roleField: string;
  permissions: string[];
}

function objectRoles(model: string, roles: Record<string, [string, readonly string[]]>): DefinitionSpec[] {
  const m = byModel(model);
  return Object.entries(roles).map(([roleField, [action, actions]]) => ({
    name: `${m.className} ${action}`,
    description: action === 'Admin' ? `Has all permissions to a single ${m.model}` : `Has ${action.toLowerCase()} permissions to a single ${m.model}`,
    resource: m.resource,
    roleField,
    permissions: perms(model, actions),
  }));
}

const ORGANIZATION_CHILD_ADMINS: Record<string, string> = {
  project_admin_role: 'project',
  inventory_admin_role: 'inventory',
  credential_admin_role: 'credential',
  workflow_admin_role: 'workflowjobtemplate',
  notification_admin_role: 'notificationtemplate',
  job_template_admin_role: 'jobtemplate',
  execution_environment_admin_role: 'executionenvironment',
};

/** Notification templates and execution environments have no object roles in Drover, only their organization admins. */
const ORGANIZATION_ONLY: Record<string, string> = { notificationtemplate: 'NotificationTemplate', executionenvironment: 'ExecutionEnvironment' };
const orgOnlyPerms = (model: string) => ['add', 'change', 'delete', 'view'].map((a) => `awx.${a}_${model}`);

function organizationRoles(): DefinitionSpec[] {
  const org = (roleField: string, name: string, description: string, permissions: string[]): DefinitionSpec =>
    ({ name, description, resource: 'organization', roleField, permissions });
  const childAdmins = Object.entries(ORGANIZATION_CHILD_ADMINS).map(([roleField, model]) => {
    const className = ORGANIZATION_ONLY[model] ?? byModel(model).className;
    const permissions = ORGANIZATION_ONLY[model] ? [...perms('organization', ['view']), ...orgOnlyPerms(model)] : childAdmin(model);
    return org(roleField, `Organization ${className} Admin`, `Has all permissions to ${model} objects within an organization`, permissions);
  });
  const childViews = [...PERMISSION_MODELS.filter((c) => c.organizationChild).map((c) => `${c.prefix}.view_${c.model}`), ...Object.keys(ORGANIZATION_ONLY).map((m) => `awx.view_${m}`)];
  return [
    org('admin_role', 'Organization Admin', 'Has all permissions to a single organization and all objects inside of it',
      allowedPermissions(byModel('organization'))),
    org('auditor_role', 'Organization Audit', 'Has audit permissions to a single organization: reads everything in it', [...perms('organization', ['audit', 'view']), ...childViews]),
    org('member_role', 'Organization Member', 'Has member permissions to a single organization', perms('organization', ['member', 'view'])),
    org('read_role', 'Organization Read', 'Has view permissions to a single organization', perms('organization', ['view'])),
    org('execute_role', 'Organization Execute', 'May run every job template and workflow job template of an organization',
      [...perms('organization', ['view']), ...perms('jobtemplate', ['execute', 'view']), ...perms('workflowjobtemplate', ['execute', 'view'])]),
    org('approval_role', 'Organization Approval', 'May approve or deny the workflow approvals of an organization',
      [...perms('organization', ['view']), ...perms('workflowjobtemplate', ['approve', 'view'])]),
    ...childAdmins,
  ];
}

/** The managed role definitions, one per Drover object role. Migration 0055 stores them in this order. */
export const MANAGED_DEFINITIONS: readonly DefinitionSpec[] = [
  ...organizationRoles(),
  ...objectRoles('team', { admin_role: ['Admin', ['change', 'delete', 'member', 'view']], member_role: ['Member', ['member', 'view']], read_role: ['Read', ['view']] }),
  ...objectRoles('inventory', {
    admin_role: ['Admin', ['change', 'delete', 'use', 'adhoc', 'update', 'view']],
    update_role: ['Update', ['update', 'view']],
    // Drover's adhoc_role gives its use_role too (as AWX's old roles did).
    adhoc_role: ['Adhoc', ['adhoc', 'use', 'view']],
    use_role: ['Use', ['use', 'view']],
    read_role: ['Read', ['view']],
  }),
  ...objectRoles('project', {
    admin_role: ['Admin', ['change', 'delete', 'use', 'update', 'view']], use_role: ['Use', ['use', 'view']], update_role: ['Update', ['update', 'view']], read_role: ['Read', ['view']],
  }),
  ...objectRoles('credential', { admin_role: ['Admin', ['change', 'delete', 'use', 'view']], use_role: ['Use', ['use', 'view']], read_role: ['Read', ['view']] }),
  ...objectRoles('jobtemplate', { admin_role: ['Admin', ['change', 'delete', 'execute', 'view']], execute_role: ['Execute', ['execute', 'view']], read_role: ['Read', ['view']] }),
  ...objectRoles('workflowjobtemplate', {
    admin_role: ['Admin', ['change', 'delete', 'execute', 'approve', 'view']], execute_role: ['Execute', ['execute', 'view']],
    approval_role: ['Approve', ['approve', 'view']], read_role: ['Read', ['view']],
  }),
  ...objectRoles('instancegroup', { admin_role: ['Admin', ['change', 'delete', 'use', 'view']], use_role: ['Use', ['use', 'view']], read_role: ['Read', ['view']] }),
];

/** Every permission a role definition of some content type may name (DAB's PermissionField choices). */
export const ALL_PERMISSIONS: readonly string[] = [
  ...new Set([...PERMISSION_MODELS.flatMap((m) => qualified(m, codenamesOf(m))), ...Object.keys(ORGANIZATION_ONLY).flatMap(orgOnlyPerms)]),
].sort();
