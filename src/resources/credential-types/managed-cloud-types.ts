/** Managed credential types of kind cloud (and Insights), as AWX defines them. */
import { flag, secretText, text, type CredentialTypeDefinition } from './type-schema.ts';

const hostUserPassword = (namespace: string, name: string, hostLabel: string, hostHelp: string): CredentialTypeDefinition => ({
  namespace,
  kind: 'cloud',
  name,
  inputs: {
    fields: [text('host', hostLabel, { help_text: hostHelp }), text('username', 'Username'), secretText('password', 'Password')],
    required: ['host', 'username', 'password'],
  },
});

const CONTROLLER_ENV = Object.fromEntries(
  ['TOWER', 'CONTROLLER'].flatMap((prefix) => [
    [`${prefix}_HOST`, '{{host}}'],
    [`${prefix}_USERNAME`, '{{username}}'],
    [`${prefix}_PASSWORD`, '{{password}}'],
    [`${prefix}_VERIFY_SSL`, '{{verify_ssl}}'],
    [`${prefix}_OAUTH_TOKEN`, '{{oauth_token}}'],
  ]),
);

export const MANAGED_CLOUD_TYPES: CredentialTypeDefinition[] = [
  {
    namespace: 'aws',
    kind: 'cloud',
    name: 'Amazon Web Services',
    inputs: {
      fields: [
        text('username', 'Access Key'),
        secretText('password', 'Secret Key'),
        secretText('security_token', 'STS Token', {
          help_text:
            'Security Token Service (STS) is a web service that enables you to request temporary, limited-privilege credentials for AWS Identity and Access Management (IAM) users.',
        }),
      ],
      required: ['username', 'password'],
    },
  },
  {
    namespace: 'openstack',
    kind: 'cloud',
    name: 'OpenStack',
    inputs: {
      fields: [
        text('username', 'Username'),
        secretText('password', 'Password (API Key)'),
        text('host', 'Host (Authentication URL)', { help_text: 'The host to authenticate with.  For example, https://openstack.business.com/v2.0/' }),
        text('project', 'Project (Tenant Name)'),
        text('project_domain_name', 'Project (Domain Name)'),
        text('domain', 'Domain Name', {
          help_text:
            'OpenStack domains define administrative boundaries. It is only needed for Keystone v3 authentication URLs. Refer to the documentation for common scenarios.',
        }),
        text('region', 'Region Name', { help_text: 'For some cloud providers, like OVH, region must be specified' }),
        flag('verify_ssl', 'Verify SSL', { default: true }),
      ],
      required: ['username', 'password', 'host', 'project'],
    },
  },
  hostUserPassword('vmware', 'VMware vCenter', 'VCenter Host', 'Enter the hostname or IP address that corresponds to your VMware vCenter.'),
  hostUserPassword(
    'satellite6',
    'Red Hat Satellite 6',
    'Satellite 6 URL',
    'Enter the URL that corresponds to your Red Hat Satellite 6 server. For example, https://satellite.example.org',
  ),
  {
    namespace: 'gce',
    kind: 'cloud',
    name: 'Google Compute Engine',
    inputs: {
      fields: [
        text('username', 'Service Account Email Address', { help_text: 'The email address assigned to the Google Compute Engine service account.' }),
        text('project', 'Project', {
          help_text:
            'The Project ID is the GCE assigned identification. It is often constructed as three words or two words followed by a three-digit number. Examples: project-id-000 and another-project-id',
        }),
        secretText('ssh_key_data', 'RSA Private Key', {
          format: 'ssh_private_key',
          multiline: true,
          help_text: 'Paste the contents of the PEM file associated with the service account email.',
        }),
      ],
      required: ['username', 'ssh_key_data'],
    },
  },
  {
    namespace: 'azure_rm',
    kind: 'cloud',
    name: 'Microsoft Azure Resource Manager',
    inputs: {
      fields: [
        text('subscription', 'Subscription ID', { help_text: 'Subscription ID is an Azure construct, which is mapped to a username.' }),
        text('username', 'Username'),
        secretText('password', 'Password'),
        text('client', 'Client ID'),
        secretText('secret', 'Client Secret'),
        text('tenant', 'Tenant ID'),
        text('cloud_environment', 'Azure Cloud Environment', {
          help_text: 'Environment variable AZURE_CLOUD_ENVIRONMENT when using Azure GovCloud or Azure stack.',
        }),
      ],
      required: ['subscription'],
    },
  },
  {
    namespace: 'insights',
    kind: 'insights',
    name: 'Insights',
    inputs: { fields: [text('username', 'Username'), secretText('password', 'Password')], required: ['username', 'password'] },
    injectors: {
      extra_vars: { scm_username: '{{username}}', scm_password: '{{password}}' },
      env: { INSIGHTS_USER: '{{username}}', INSIGHTS_PASSWORD: '{{password}}' },
    },
  },
  {
    namespace: 'rhv',
    kind: 'cloud',
    name: 'Red Hat Virtualization',
    inputs: {
      fields: [
        text('host', 'Host (Authentication URL)', { help_text: 'The host to authenticate with.' }),
        text('username', 'Username'),
        secretText('password', 'Password'),
        text('ca_file', 'CA File', { help_text: 'Absolute file path to the CA file to use (optional)' }),
      ],
      required: ['host', 'username', 'password'],
    },
    injectors: {
      // The ovirt4 inventory plugin reads the .ini file, the ovirt modules the environment: both are injected.
      file: {
        template: ['[ovirt]', 'ovirt_url={{host}}', 'ovirt_username={{username}}', 'ovirt_password={{password}}', '{% if ca_file %}ovirt_ca_file={{ca_file}}{% endif %}'].join('\n'),
      },
      env: { OVIRT_INI_PATH: '{{tower.filename}}', OVIRT_URL: '{{host}}', OVIRT_USERNAME: '{{username}}', OVIRT_PASSWORD: '{{password}}' },
    },
  },
  {
    namespace: 'controller',
    kind: 'cloud',
    name: 'Red Hat Ansible Automation Platform',
    inputs: {
      fields: [
        text('host', 'Red Hat Ansible Automation Platform', { help_text: 'Red Hat Ansible Automation Platform base URL to authenticate with.' }),
        text('username', 'Username', {
          help_text: 'Red Hat Ansible Automation Platform username id to authenticate as.This should not be set if an OAuth token is being used.',
        }),
        secretText('password', 'Password'),
        secretText('oauth_token', 'OAuth Token', { help_text: 'An OAuth token to use to authenticate with.This should not be set if username/password are being used.' }),
        flag('verify_ssl', 'Verify SSL', { secret: false }),
      ],
      required: ['host'],
    },
    injectors: { env: CONTROLLER_ENV },
  },
  {
    namespace: 'terraform',
    kind: 'cloud',
    name: 'Terraform backend configuration',
    inputs: {
      fields: [
        secretText('configuration', 'Backend configuration', { multiline: true, help_text: 'Terraform backend config as Hashicorp configuration language.' }),
      ],
      required: ['configuration'],
    },
  },
];
