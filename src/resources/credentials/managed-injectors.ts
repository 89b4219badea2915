/**
 * How the managed cloud types without injector templates reach a run, as AWX's builtin
 * injectors do: environment variables, and configuration files written in the private directory.
 */
import YAML from 'yaml';

export interface InjectionTarget {
  env: Record<string, string>;
  /** Writes a file (0600) in the run's private directory and answers its path. */
  writeFile(content: string): Promise<string>;
}

/** A credential's inputs by field id (credential-inputs.ts reads and writes them). */
type Inputs = Record<string, unknown>;

type Injector = (inputs: Inputs, target: InjectionTarget) => Promise<void> | void;

/** An input as a string ('' when unset), as AWX's get_input(name, default='') answers. */
const str = (inputs: Inputs, id: string): string => {
  const value = inputs[id];
  return value === undefined || value === null ? '' : String(value);
};
const has = (inputs: Inputs, id: string) => inputs[id] !== undefined && inputs[id] !== null && inputs[id] !== '';

export const BUILTIN_INJECTORS: Record<string, Injector> = {
  aws(inputs, { env }) {
    env.AWS_ACCESS_KEY_ID = str(inputs, 'username');
    env.AWS_SECRET_ACCESS_KEY = str(inputs, 'password');
    if (has(inputs, 'security_token')) {
      env.AWS_SECURITY_TOKEN = str(inputs, 'security_token');
      env.AWS_SESSION_TOKEN = env.AWS_SECURITY_TOKEN;
    }
  },

  async gce(inputs, { env, writeFile }) {
    const project = str(inputs, 'project');
    const email = str(inputs, 'username');
    const account = {
      type: 'service_account',
      private_key: str(inputs, 'ssh_key_data'),
      client_email: email,
      project_id: project,
      token_uri: 'https://oauth2.googleapis.com/token',
    };
    const file = await writeFile(JSON.stringify(account, null, 2));
    Object.assign(env, {
      GCE_EMAIL: email,
      GCE_PROJECT: project,
      GCE_CREDENTIALS_FILE_PATH: file,
      GCP_SERVICE_ACCOUNT_FILE: file,
      GOOGLE_APPLICATION_CREDENTIALS: file,
      GCP_AUTH_KIND: 'serviceaccount',
      GCP_PROJECT: project,
      GCP_ENV_TYPE: 'tower',
    });
  },

  azure_rm(inputs, { env }) {
    env.AZURE_SUBSCRIPTION_ID = str(inputs, 'subscription');
    if (str(inputs, 'client') && str(inputs, 'tenant')) {
      env.AZURE_CLIENT_ID = str(inputs, 'client');
      env.AZURE_TENANT = str(inputs, 'tenant');
      env.AZURE_SECRET = str(inputs, 'secret');
    } else {
      env.AZURE_AD_USER = str(inputs, 'username');
      env.AZURE_PASSWORD = str(inputs, 'password');
    }
    if (has(inputs, 'cloud_environment')) env.AZURE_CLOUD_ENVIRONMENT = str(inputs, 'cloud_environment');
  },

  vmware(inputs, { env }) {
    env.VMWARE_USER = str(inputs, 'username');
    env.VMWARE_PASSWORD = str(inputs, 'password');
    env.VMWARE_HOST = str(inputs, 'host');
    // AWX's VMWARE_VALIDATE_CERTS setting, off by default.
    env.VMWARE_VALIDATE_CERTS = 'False';
  },

  async openstack(inputs, { env, writeFile }) {
    const auth: Record<string, string> = {
      auth_url: str(inputs, 'host'),
      username: str(inputs, 'username'),
      password: str(inputs, 'password'),
      project_name: str(inputs, 'project'),
    };
    if (has(inputs, 'project_domain_name')) auth.project_domain_name = str(inputs, 'project_domain_name');
    if (has(inputs, 'domain')) auth.domain_name = str(inputs, 'domain');
    const cloud: Record<string, unknown> = { auth, verify: inputs.verify_ssl ?? true };
    if (has(inputs, 'region')) cloud.region_name = str(inputs, 'region');
    env.OS_CLIENT_CONFIG_FILE = await writeFile(YAML.stringify({ clouds: { devstack: cloud } }));
  },

  async kubernetes_bearer_token(inputs, { env, writeFile }) {
    env.K8S_AUTH_HOST = str(inputs, 'host');
    env.K8S_AUTH_API_KEY = str(inputs, 'bearer_token');
    if (inputs.verify_ssl === true && has(inputs, 'ssl_ca_cert')) {
      env.K8S_AUTH_VERIFY_SSL = 'True';
      env.K8S_AUTH_SSL_CA_CERT = await writeFile(str(inputs, 'ssl_ca_cert'));
    } else {
      env.K8S_AUTH_VERIFY_SSL = 'False';
    }
  },

  async terraform(inputs, { env, writeFile }) {
    env.TF_BACKEND_CONFIG_FILE = await writeFile(str(inputs, 'configuration'));
  },
};
