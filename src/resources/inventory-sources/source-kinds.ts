/**
 * The kinds of inventory source and what each needs, as AWX 24 defines them: `scm` (an inventory
 * file or directory of a project), `file` (inventory text or a script kept in the source's
 * variables) and the cloud kinds, each read by its collection's inventory plugin.
 */

export interface CloudKind {
  /** Fully qualified name of the inventory plugin. */
  plugin: string;
  /** Name of the generated plugin configuration file: the plugins only read files named so. */
  fileName: string;
  /** Namespace the credential's type must have (AWX: the source with ec2 read as aws). */
  credentialNamespace: string;
  /** Whether the source may run without a credential (on EC2 an instance role can stand in). */
  credentialOptional?: boolean;
  /** AWX's <SOURCE>_ENABLED_VAR / _ENABLED_VALUE / _INSTANCE_ID_VAR / _EXCLUDE_EMPTY_GROUPS defaults. */
  enabledVar?: string;
  enabledValue?: string;
  instanceIdVar?: string;
  excludeEmptyGroups: boolean;
  /** Environment the plugin needs besides the credential's (native Jinja types for typed host variables). */
  env?: Record<string, string>;
}

const NATIVE_JINJA = { ANSIBLE_JINJA2_NATIVE: 'True' };

export const CLOUD_KINDS: Record<string, CloudKind> = {
  ec2: {
    plugin: 'amazon.aws.aws_ec2', fileName: 'aws_ec2.yml', credentialNamespace: 'aws', credentialOptional: true,
    enabledVar: 'ec2_state', enabledValue: 'running', instanceIdVar: 'instance_id', excludeEmptyGroups: true, env: NATIVE_JINJA,
  },
  gce: {
    plugin: 'google.cloud.gcp_compute', fileName: 'gcp_compute.yml', credentialNamespace: 'gce',
    enabledVar: 'status', enabledValue: 'running', instanceIdVar: 'gce_id', excludeEmptyGroups: true, env: NATIVE_JINJA,
  },
  azure_rm: {
    plugin: 'azure.azcollection.azure_rm', fileName: 'azure_rm.yml', credentialNamespace: 'azure_rm',
    enabledVar: 'powerstate', enabledValue: 'running', instanceIdVar: 'id', excludeEmptyGroups: true, env: NATIVE_JINJA,
  },
  vmware: {
    plugin: 'community.vmware.vmware_vm_inventory', fileName: 'vmware_vm_inventory.yml', credentialNamespace: 'vmware',
    enabledVar: 'guest.gueststate', enabledValue: 'running', instanceIdVar: 'config.instanceUuid, config.instanceuuid', excludeEmptyGroups: true,
  },
  openstack: {
    plugin: 'openstack.cloud.openstack', fileName: 'openstack.yml', credentialNamespace: 'openstack',
    enabledVar: 'status', enabledValue: 'ACTIVE', instanceIdVar: 'openstack.id', excludeEmptyGroups: true,
  },
  rhv: {
    plugin: 'ovirt.ovirt.ovirt', fileName: 'ovirt.yml', credentialNamespace: 'rhv',
    enabledVar: 'status', enabledValue: 'up', instanceIdVar: 'id', excludeEmptyGroups: true,
  },
  satellite6: {
    plugin: 'theforeman.foreman.foreman', fileName: 'foreman.yml', credentialNamespace: 'satellite6',
    enabledVar: 'foreman_enabled,foreman.enabled', enabledValue: 'True', instanceIdVar: 'foreman_id,foreman.id', excludeEmptyGroups: true,
  },
  controller: {
    plugin: 'awx.awx.tower', fileName: 'tower.yml', credentialNamespace: 'controller',
    enabledVar: 'remote_tower_enabled', enabledValue: 'true', instanceIdVar: 'remote_tower_id', excludeEmptyGroups: true,
  },
  insights: {
    plugin: 'redhatinsights.insights.insights', fileName: 'insights.yml', credentialNamespace: 'insights',
    instanceIdVar: 'insights_id', excludeEmptyGroups: false,
  },
  terraform: {
    plugin: 'cloud.terraform.terraform_state', fileName: 'terraform_state.yml', credentialNamespace: 'terraform',
    instanceIdVar: 'id', excludeEmptyGroups: true,
  },
};

/** The `source` choices with AWX's labels. */
export const SOURCE_CHOICES: readonly (readonly [string, string])[] = [
  ['file', 'File, Directory or Script'],
  ['scm', 'Sourced from a Project'],
  ['ec2', 'Amazon EC2'],
  ['gce', 'Google Compute Engine'],
  ['azure_rm', 'Microsoft Azure Resource Manager'],
  ['vmware', 'VMware vCenter'],
  ['satellite6', 'Red Hat Satellite 6'],
  ['openstack', 'OpenStack'],
  ['rhv', 'Red Hat Virtualization'],
  ['controller', 'Red Hat Ansible Automation Platform'],
  ['insights', 'Red Hat Insights'],
  ['terraform', 'Terraform State'],
  ['constructed', 'Template additional groups and hostvars at runtime'],
];

export const isCloudKind = (source: string): boolean => source in CLOUD_KINDS;

/** The import options a source's kind implies where the source leaves them unset (as AWX's settings). */
export function importDefaults(source: string): { enabledVar: string; enabledValue: string; instanceIdVar: string; excludeEmptyGroups: boolean } {
  // AWX's CONSTRUCTED_INSTANCE_ID_VAR: each host keeps the id of the input host it came from.
  if (source === 'constructed') return { enabledVar: '', enabledValue: '', instanceIdVar: 'remote_tower_id', excludeEmptyGroups: false };
  const kind = CLOUD_KINDS[source];
  return {
    enabledVar: kind?.enabledVar ?? '',
    enabledValue: kind?.enabledValue ?? '',
    instanceIdVar: kind?.instanceIdVar ?? '',
    excludeEmptyGroups: kind?.excludeEmptyGroups ?? false,
  };
}

/** Environment variables scm and file sources may not set through their variables (AWX's INV_ENV_VARIABLE_BLOCKED). */
export const BLOCKED_SOURCE_ENV = new Set(['HOME', 'USER', '_', 'TERM', 'PATH']);
