/**
 * The managed credential types of kind external (AWX 24.6.1's credential plugins,
 * awx/main/credential_plugins/): their inputs, metadata and required lists as AWX defines them.
 * A credential of such a type is the source of other credentials' inputs (credential input sources).
 * AWX leaves `type` out of a few choice fields (its schema reads them as strings): they say 'string' here.
 */
import { flag, secretText, text, type CredentialTypeDefinition, type InputField } from './type-schema.ts';

const hashiBaseFields: InputField[] = [
  text('url', 'Server URL', { format: 'url', help_text: 'The URL to the HashiCorp Vault' }),
  secretText('token', 'Token', { help_text: 'The access token used to authenticate to the Vault server' }),
  text('cacert', 'CA Certificate', { multiline: true, help_text: 'The CA certificate used to verify the SSL certificate of the Vault server' }),
  text('role_id', 'AppRole role_id', { multiline: false, help_text: 'The Role ID for AppRole Authentication' }),
  secretText('secret_id', 'AppRole secret_id', { multiline: false, help_text: 'The Secret ID for AppRole Authentication' }),
  text('client_cert_public', 'Client Certificate', {
    multiline: true,
    help_text: 'The PEM-encoded client certificate used for TLS client authentication. This should include the certificate and any intermediate certififcates.',
  }),
  secretText('client_cert_private', 'Client Certificate Key', { multiline: true, help_text: 'The certificate private key used for TLS client authentication.' }),
  text('client_cert_role', 'TLS Authentication Role', {
    multiline: false,
    help_text: 'The role configured in Hashicorp Vault for TLS client authentication. If not provided, Hashicorp Vault may assign roles based on the certificate used.',
  }),
  text('namespace', 'Namespace name (Vault Enterprise only)', { multiline: false, help_text: 'Name of the namespace to use when authenticate and retrieve secrets' }),
  text('kubernetes_role', 'Kubernetes role', {
    multiline: false,
    help_text:
      'The Role for Kubernetes Authentication. This is the named role, configured in Vault server, for AWX pod auth policies. see https://www.vaultproject.io/docs/auth/kubernetes#configuration',
  }),
  text('username', 'Username', { secret: false, help_text: 'Username for user authentication.' }),
  secretText('password', 'Password', { help_text: 'Password for user authentication.' }),
  text('default_auth_path', 'Path to Auth', {
    multiline: false,
    default: 'approle',
    help_text: "The Authentication path to use if one isn't provided in the metadata when linking to an input field. Defaults to 'approle'",
  }),
];

const hashiBaseMetadata: InputField[] = [
  text('secret_path', 'Path to Secret', {
    help_text:
      'The path to the secret stored in the secret backend e.g, /some/secret/. It is recommended that you use the secret backend field to identify the storage backend and to use this field for locating a specific secret within that store. However, if you prefer to fully identify both the secret backend and one of its secrets using only this field, join their locations into a single path without any additional separators, e.g, /location/of/backend/some/secret.',
  }),
  text('auth_path', 'Path to Auth', { multiline: false, help_text: 'The path where the Authentication method is mounted e.g, approle' }),
];

const HASHI_KV: CredentialTypeDefinition = {
  namespace: 'hashivault_kv',
  kind: 'external',
  name: 'HashiCorp Vault Secret Lookup',
  inputs: {
    fields: [
      ...hashiBaseFields,
      text('api_version', 'API Version', {
        choices: ['v1', 'v2'],
        help_text: 'API v1 is for static key/value lookups.  API v2 is for versioned key/value lookups.',
        default: 'v1',
      }),
    ],
    metadata: [
      text('secret_backend', 'Name of Secret Backend', {
        help_text: 'The name of the kv secret backend (if left empty, the first segment of the secret path will be used).',
      }),
      ...hashiBaseMetadata,
      text('secret_key', 'Key Name', { help_text: 'The name of the key to look up in the secret.' }),
      text('secret_version', 'Secret Version (v2 only)', { help_text: 'Used to specify a specific secret version (if left empty, the latest version will be used).' }),
    ],
    required: ['url', 'secret_path', 'api_version', 'secret_key'],
  },
};

const HASHI_SSH: CredentialTypeDefinition = {
  namespace: 'hashivault_ssh',
  kind: 'external',
  name: 'HashiCorp Vault Signed SSH',
  inputs: {
    fields: hashiBaseFields,
    metadata: [
      text('public_key', 'Unsigned Public Key', { multiline: true }),
      ...hashiBaseMetadata,
      text('role', 'Role Name', { help_text: 'The name of the role used to sign.' }),
      text('valid_principals', 'Valid Principals', { help_text: 'Valid principals (either usernames or hostnames) that the certificate should be signed for.' }),
    ],
    required: ['url', 'secret_path', 'public_key', 'role'],
  },
};

const AIM: CredentialTypeDefinition = {
  namespace: 'aim',
  kind: 'external',
  name: 'CyberArk Central Credential Provider Lookup',
  inputs: {
    fields: [
      text('url', 'CyberArk CCP URL', { format: 'url' }),
      text('webservice_id', 'Web Service ID', { help_text: 'The CCP Web Service ID. Leave blank to default to AIMWebService.' }),
      secretText('app_id', 'Application ID'),
      secretText('client_key', 'Client Key', { multiline: true }),
      secretText('client_cert', 'Client Certificate', { multiline: true }),
      flag('verify', 'Verify SSL Certificates', { default: true }),
    ],
    metadata: [
      text('object_query', 'Object Query', { help_text: 'Lookup query for the object. Ex: Safe=TestSafe;Object=testAccountName123' }),
      text('object_query_format', 'Object Query Format', { default: 'Exact', choices: ['Exact', 'Regexp'] }),
      text('object_property', 'Object Property', { help_text: 'The property of the object to return. Available properties: Username, Password and Address.' }),
      text('reason', 'Reason', { help_text: "Object request reason. This is only needed if it is required by the object's policy." }),
    ],
    required: ['url', 'app_id', 'object_query'],
  },
};

const CONJUR: CredentialTypeDefinition = {
  namespace: 'conjur',
  kind: 'external',
  name: 'CyberArk Conjur Secrets Manager Lookup',
  inputs: {
    fields: [
      text('url', 'Conjur URL', { format: 'url' }),
      secretText('api_key', 'API Key'),
      text('account', 'Account'),
      text('username', 'Username'),
      text('cacert', 'Public Key Certificate', { multiline: true }),
    ],
    metadata: [
      text('secret_path', 'Secret Identifier', { help_text: 'The identifier for the secret e.g., /some/identifier' }),
      text('secret_version', 'Secret Version', { help_text: 'Used to specify a specific secret version (if left empty, the latest version will be used).' }),
    ],
    required: ['url', 'api_key', 'account', 'username'],
  },
};

const AZURE_KV: CredentialTypeDefinition = {
  namespace: 'azure_kv',
  kind: 'external',
  name: 'Microsoft Azure Key Vault',
  inputs: {
    fields: [
      text('url', 'Vault URL (DNS Name)', { format: 'url' }),
      text('client', 'Client ID'),
      secretText('secret', 'Client Secret'),
      text('tenant', 'Tenant ID'),
      text('cloud_name', 'Cloud Environment', {
        help_text: 'Specify which azure cloud environment to use.',
        choices: ['AzureCloud', 'AzureChinaCloud', 'AzureUSGovernment', 'AzureGermanCloud'],
        default: 'AzureCloud',
      }),
    ],
    metadata: [
      text('secret_field', 'Secret Name', { help_text: 'The name of the secret to look up.' }),
      text('secret_version', 'Secret Version', { help_text: 'Used to specify a specific secret version (if left empty, the latest version will be used).' }),
    ],
    required: ['url', 'client', 'secret', 'tenant', 'secret_field'],
  },
};

const CENTRIFY: CredentialTypeDefinition = {
  namespace: 'centrify_vault_kv',
  kind: 'external',
  name: 'Centrify Vault Credential Provider Lookup',
  inputs: {
    fields: [
      text('url', 'Centrify Tenant URL', { help_text: 'Centrify Tenant URL', format: 'url' }),
      text('client_id', 'Centrify API User', { help_text: 'Centrify API User, having necessary permissions as mentioned in support doc' }),
      secretText('client_password', 'Centrify API Password', { help_text: 'Password of Centrify API User with necessary permissions' }),
      text('oauth_application_id', 'OAuth2 Application ID', { help_text: "Application ID of the configured OAuth2 Client (defaults to 'awx')", default: 'awx' }),
      text('oauth_scope', 'OAuth2 Scope', { help_text: "Scope of the configured OAuth2 Client (defaults to 'awx')", default: 'awx' }),
    ],
    metadata: [
      text('account-name', 'Account Name', {
        help_text: 'Local system account or Domain account name enrolled in Centrify Vault. eg. (root or DOMAIN/Administrator)',
      }),
      text('system-name', 'System Name', { help_text: 'Machine Name enrolled with in Centrify Portal' }),
    ],
    required: ['url', 'account-name', 'system-name', 'client_id', 'client_password'],
  },
};

const DSV: CredentialTypeDefinition = {
  namespace: 'thycotic_dsv',
  kind: 'external',
  name: 'Thycotic DevOps Secrets Vault',
  inputs: {
    fields: [
      text('tenant', 'Tenant', { help_text: 'The tenant e.g. "ex" when the URL is https://ex.secretsvaultcloud.com' }),
      text('tld', 'Top-level Domain (TLD)', {
        help_text: 'The TLD of the tenant e.g. "com" when the URL is https://ex.secretsvaultcloud.com',
        choices: ['ca', 'com', 'com.au', 'eu'],
        default: 'com',
      }),
      text('client_id', 'Client ID'),
      secretText('client_secret', 'Client Secret'),
    ],
    metadata: [
      text('path', 'Secret Path', { help_text: 'The secret path e.g. /test/secret1' }),
      text('secret_field', 'Secret Field', { help_text: 'The field to extract from the secret' }),
      text('secret_decoding', 'Should the secret be base64 decoded?', {
        help_text: 'Specify whether the secret should be base64 decoded, typically used for storing files, such as SSH keys',
        choices: ['No Decoding', 'Decode Base64'],
        default: 'No Decoding',
      }),
    ],
    required: ['tenant', 'client_id', 'client_secret', 'path', 'secret_field', 'secret_decoding'],
  },
};

const TSS: CredentialTypeDefinition = {
  namespace: 'thycotic_tss',
  kind: 'external',
  name: 'Thycotic Secret Server',
  inputs: {
    fields: [
      text('server_url', 'Secret Server URL', { help_text: 'The Base URL of Secret Server e.g. https://myserver/SecretServer or https://mytenant.secretservercloud.com' }),
      text('username', 'Username', { help_text: 'The (Application) user username' }),
      text('domain', 'Domain', { help_text: 'The (Application) user domain' }),
      secretText('password', 'Password', { help_text: 'The corresponding password' }),
    ],
    metadata: [
      text('secret_id', 'Secret ID', { help_text: 'The integer ID of the secret' }),
      text('secret_field', 'Secret Field', { help_text: 'The field to extract from the secret' }),
    ],
    required: ['server_url', 'username', 'password', 'secret_id', 'secret_field'],
  },
};

const AWS_SECRETS_MANAGER: CredentialTypeDefinition = {
  namespace: 'aws_secretsmanager_credential',
  kind: 'external',
  name: 'AWS Secrets Manager lookup',
  inputs: {
    fields: [text('aws_access_key', 'AWS Access Key'), secretText('aws_secret_key', 'AWS Secret Key')],
    metadata: [text('region_name', 'AWS Secrets Manager Region', { help_text: 'Region which the secrets manager is located' }), text('secret_name', 'AWS Secret Name')],
    required: ['aws_access_key', 'aws_secret_key', 'region_name', 'secret_name'],
  },
};

/** In AWX's entry point order (setup.cfg). */
export const MANAGED_EXTERNAL_TYPES: CredentialTypeDefinition[] = [CONJUR, HASHI_KV, HASHI_SSH, AZURE_KV, AIM, CENTRIFY, DSV, TSS, AWS_SECRETS_MANAGER];
