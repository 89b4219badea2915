/**
 * The credential types the service manages (AWX's, with their namespaces, input ids, labels,
 * secret flags and required lists). They are kept in the database at every start
 * (sync-managed.ts) and are read-only through the API.
 */
import { MANAGED_CLOUD_TYPES } from './managed-cloud-types.ts';
import { MANAGED_EXTERNAL_TYPES } from './managed-external-types.ts';
import { flag, secretText, text, type CredentialTypeDefinition } from './type-schema.ts';

const PRIVATE_KEY = { format: 'ssh_private_key', multiline: true } as const;
const token = (namespace: string, name: string, where: string): CredentialTypeDefinition => ({
  namespace,
  kind: 'token',
  name,
  inputs: { fields: [secretText('token', 'Token', { help_text: `This token needs to come from your ${where}` })], required: ['token'] },
});

const MANAGED_TYPES: CredentialTypeDefinition[] = [
  {
    namespace: 'ssh',
    kind: 'ssh',
    name: 'Machine',
    inputs: {
      fields: [
        text('username', 'Username'),
        secretText('password', 'Password', { ask_at_runtime: true }),
        secretText('ssh_key_data', 'SSH Private Key', PRIVATE_KEY),
        secretText('ssh_public_key_data', 'Signed SSH Certificate', { multiline: true }),
        secretText('ssh_key_unlock', 'Private Key Passphrase', { ask_at_runtime: true }),
        text('become_method', 'Privilege Escalation Method', {
          help_text: 'Specify a method for "become" operations. This is equivalent to specifying the --become-method Ansible parameter.',
        }),
        text('become_username', 'Privilege Escalation Username'),
        secretText('become_password', 'Privilege Escalation Password', { ask_at_runtime: true }),
      ],
    },
  },
  {
    namespace: 'scm',
    kind: 'scm',
    name: 'Source Control',
    inputs: {
      fields: [
        text('username', 'Username'),
        secretText('password', 'Password'),
        secretText('ssh_key_data', 'SCM Private Key', PRIVATE_KEY),
        secretText('ssh_key_unlock', 'Private Key Passphrase'),
      ],
    },
  },
  {
    namespace: 'vault',
    kind: 'vault',
    name: 'Vault',
    inputs: {
      fields: [
        secretText('vault_password', 'Vault Password', { ask_at_runtime: true }),
        text('vault_id', 'Vault Identifier', {
          format: 'vault_id',
          help_text:
            'Specify an (optional) Vault ID. This is equivalent to specifying the --vault-id Ansible parameter for providing multiple Vault passwords.  Note: this feature only works in Ansible 2.4+.',
        }),
      ],
      required: ['vault_password'],
    },
  },
  {
    namespace: 'net',
    kind: 'net',
    name: 'Network',
    inputs: {
      fields: [
        text('username', 'Username'),
        secretText('password', 'Password'),
        secretText('ssh_key_data', 'SSH Private Key', PRIVATE_KEY),
        secretText('ssh_key_unlock', 'Private Key Passphrase'),
        flag('authorize', 'Authorize'),
        secretText('authorize_password', 'Authorize Password'),
      ],
      dependencies: { authorize_password: ['authorize'] },
      required: ['username'],
    },
  },
  ...MANAGED_CLOUD_TYPES,
  token('github_token', 'GitHub Personal Access Token', 'profile settings in GitHub'),
  token('gitlab_token', 'GitLab Personal Access Token', 'profile settings in GitLab'),
  token('bitbucket_dc_token', 'Bitbucket Data Center HTTP Access Token', 'user settings in Bitbucket'),
  // Beyond AWX: the services Drover's template webhooks add.
  token('gitea_token', 'Gitea Access Token', 'user settings in Gitea'),
  token('azure_devops_token', 'Azure DevOps Personal Access Token', 'user settings in Azure DevOps'),
  {
    namespace: 'kubernetes_bearer_token',
    kind: 'kubernetes',
    name: 'OpenShift or Kubernetes API Bearer Token',
    inputs: {
      fields: [
        text('host', 'OpenShift or Kubernetes API Endpoint', { help_text: 'The OpenShift or Kubernetes API Endpoint to authenticate with.' }),
        secretText('bearer_token', 'API authentication bearer token'),
        flag('verify_ssl', 'Verify SSL', { default: true }),
        secretText('ssl_ca_cert', 'Certificate Authority data', { multiline: true }),
      ],
      required: ['host', 'bearer_token'],
    },
  },
  {
    namespace: 'registry',
    kind: 'registry',
    name: 'Container Registry',
    inputs: {
      fields: [
        text('host', 'Authentication URL', { help_text: 'Authentication endpoint for the container registry.', default: 'quay.io' }),
        text('username', 'Username'),
        secretText('password', 'Password or Token', { help_text: 'A password or token used to authenticate with' }),
        flag('verify_ssl', 'Verify SSL', { default: true }),
      ],
      required: ['host'],
    },
  },
  {
    namespace: 'galaxy_api_token',
    kind: 'galaxy',
    name: 'Ansible Galaxy/Automation Hub API Token',
    inputs: {
      fields: [
        text('url', 'Galaxy Server URL', { help_text: 'The URL of the Galaxy instance to connect to.' }),
        text('auth_url', 'Auth Server URL', { help_text: 'The URL of a Keycloak server token_endpoint, if using SSO auth.' }),
        secretText('token', 'API Token', { help_text: 'A token to use for authentication against the Galaxy instance.' }),
      ],
      required: ['url'],
    },
  },
  {
    namespace: 'gpg_public_key',
    kind: 'cryptography',
    name: 'GPG Public Key',
    inputs: {
      fields: [secretText('gpg_public_key', 'GPG Public Key', { multiline: true, help_text: 'GPG Public Key used to validate content signatures.' })],
      required: ['gpg_public_key'],
    },
  },
  ...MANAGED_EXTERNAL_TYPES,
];

const byNamespace = new Map(MANAGED_TYPES.map((t) => [t.namespace, t]));

export const managedCredentialTypes = (): readonly CredentialTypeDefinition[] => MANAGED_TYPES;

export const managedCredentialType = (namespace: string | null | undefined): CredentialTypeDefinition | undefined =>
  namespace ? byNamespace.get(namespace) : undefined;
