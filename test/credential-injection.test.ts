import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { credentialInjection, InjectionError } from '../src/resources/credentials/injection.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

describe('credential injection', () => {
  let t: TestApp;
  let serial = 0;
  const typeId = async (namespace: string) => (await t.db.query('SELECT id FROM credential_types WHERE namespace = $1', [namespace]))[0].id as number;
  const credential = async (type: number | string, inputs: Record<string, unknown>) => {
    const credential_type = typeof type === 'number' ? type : await typeId(type);
    const res = await t.post('/api/v2/credentials/', { name: `inject-${++serial}`, organization: 1, credential_type, inputs });
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };
  const customType = async (inputs: unknown, injectors: unknown) => {
    const res = await t.post('/api/v2/credential_types/', { name: `Injected ${++serial}`, kind: 'cloud', inputs, injectors });
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };
  const privateDir = () => mkdtemp(path.join(tmpdir(), 'cred-inject-'));
  /** The file's content, after checking it lies in `dir` and only its owner may read it. */
  const privateFile = async (dir: string, file: string) => {
    assert.equal(path.dirname(file), dir);
    assert.equal((await stat(file)).mode & 0o777, 0o600, file);
    return readFile(file, 'utf8');
  };

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('aws: access key, secret key and STS token in the environment', async () => {
    const id = await credential('aws', { username: 'AKIA1', password: 'aws-secret', security_token: 'sts-token' });
    const out = await credentialInjection(t.db, [id], await privateDir());
    assert.deepEqual(out.env, { AWS_ACCESS_KEY_ID: 'AKIA1', AWS_SECRET_ACCESS_KEY: 'aws-secret', AWS_SECURITY_TOKEN: 'sts-token', AWS_SESSION_TOKEN: 'sts-token' });
    assert.deepEqual(out.secrets.sort(), ['aws-secret', 'sts-token']);
    assert.deepEqual(out.files, []);
  });

  it('gce: a service-account JSON file, 0600, and its path in the environment', async () => {
    const key = generateKeyPairSync('rsa', { modulusLength: 1024, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
    const id = await credential('gce', { username: 'svc@p.iam.gserviceaccount.com', project: 'proj-1', ssh_key_data: key });
    const dir = await privateDir();
    const out = await credentialInjection(t.db, [id], dir);
    assert.equal(out.files.length, 1);
    const account = JSON.parse(await privateFile(dir, out.files[0]));
    assert.deepEqual(account, {
      type: 'service_account', private_key: key, client_email: 'svc@p.iam.gserviceaccount.com', project_id: 'proj-1', token_uri: 'https://oauth2.googleapis.com/token',
    });
    for (const name of ['GCE_CREDENTIALS_FILE_PATH', 'GCP_SERVICE_ACCOUNT_FILE', 'GOOGLE_APPLICATION_CREDENTIALS']) assert.equal(out.env[name], out.files[0]);
    assert.deepEqual([out.env.GCE_EMAIL, out.env.GCE_PROJECT, out.env.GCP_PROJECT, out.env.GCP_AUTH_KIND], ['svc@p.iam.gserviceaccount.com', 'proj-1', 'proj-1', 'serviceaccount']);
    assert.deepEqual(out.secrets, [key]);
  });

  it('azure_rm: a service principal when client and tenant are set, else a user', async () => {
    const principal = await credential('azure_rm', { subscription: 'sub', client: 'cid', tenant: 'tid', secret: 'az-secret', cloud_environment: 'AzureChinaCloud' });
    assert.deepEqual((await credentialInjection(t.db, [principal], await privateDir())).env, {
      AZURE_SUBSCRIPTION_ID: 'sub', AZURE_CLIENT_ID: 'cid', AZURE_TENANT: 'tid', AZURE_SECRET: 'az-secret', AZURE_CLOUD_ENVIRONMENT: 'AzureChinaCloud',
    });
    const user = await credential('azure_rm', { subscription: 'sub', username: 'me', password: 'pw' });
    assert.deepEqual((await credentialInjection(t.db, [user], await privateDir())).env, { AZURE_SUBSCRIPTION_ID: 'sub', AZURE_AD_USER: 'me', AZURE_PASSWORD: 'pw' });
  });

  it('vmware: user, password, host, and certificate validation off (AWX default)', async () => {
    const id = await credential('vmware', { host: 'vc.example.com', username: 'adm', password: 'vm-pw' });
    assert.deepEqual((await credentialInjection(t.db, [id], await privateDir())).env, {
      VMWARE_USER: 'adm', VMWARE_PASSWORD: 'vm-pw', VMWARE_HOST: 'vc.example.com', VMWARE_VALIDATE_CERTS: 'False',
    });
  });

  it('openstack: a clouds.yaml file and OS_CLIENT_CONFIG_FILE', async () => {
    const id = await credential('openstack', { username: 'os', password: 'os-pw', host: 'https://keystone:5000/v3', project: 'demo', domain: 'Default', region: 'r1' });
    const dir = await privateDir();
    const out = await credentialInjection(t.db, [id], dir);
    assert.equal(out.env.OS_CLIENT_CONFIG_FILE, out.files[0]);
    assert.deepEqual(YAML.parse(await privateFile(dir, out.files[0])), {
      clouds: {
        devstack: {
          auth: { auth_url: 'https://keystone:5000/v3', username: 'os', password: 'os-pw', project_name: 'demo', domain_name: 'Default' },
          verify: true,
          region_name: 'r1',
        },
      },
    });
  });

  it('kubernetes and terraform write their files; insights and controller render their templates', async () => {
    const dir = await privateDir();
    const k8s = await credential('kubernetes_bearer_token', { host: 'https://k8s:6443', bearer_token: 'k8s-token', ssl_ca_cert: 'CA DATA' });
    const tf = await credential('terraform', { configuration: 'bucket = "state"' });
    const insights = await credential('insights', { username: 'rh', password: 'rh-pw' });
    const controller = await credential('controller', { host: 'https://aap', username: 'u', password: 'c-pw', verify_ssl: false });
    const out = await credentialInjection(t.db, [k8s, tf, insights, controller], dir);
    assert.deepEqual([out.env.K8S_AUTH_HOST, out.env.K8S_AUTH_API_KEY, out.env.K8S_AUTH_VERIFY_SSL], ['https://k8s:6443', 'k8s-token', 'True']);
    assert.equal(await privateFile(dir, out.env.K8S_AUTH_SSL_CA_CERT), 'CA DATA');
    assert.equal(await privateFile(dir, out.env.TF_BACKEND_CONFIG_FILE), 'bucket = "state"');
    assert.deepEqual([out.env.INSIGHTS_USER, out.env.INSIGHTS_PASSWORD], ['rh', 'rh-pw']);
    assert.deepEqual(out.extraVars, { scm_username: 'rh', scm_password: 'rh-pw' });
    assert.deepEqual([out.env.CONTROLLER_HOST, out.env.TOWER_PASSWORD, out.env.CONTROLLER_VERIFY_SSL, out.env.CONTROLLER_OAUTH_TOKEN], ['https://aap', 'c-pw', 'False', '']);
    assert.deepEqual((await readdir(dir)).length, 2);
    for (const secret of ['k8s-token', 'CA DATA', 'bucket = "state"', 'rh-pw', 'c-pw']) assert.ok(out.secrets.includes(secret), secret);
  });

  it('custom types: env, extra vars and named files from templates, as Python Jinja renders them', async () => {
    const type = await customType(
      {
        fields: [
          { id: 'user', label: 'User' },
          { id: 'token', label: 'Token', secret: true },
          { id: 'key', label: 'Key', secret: true, format: 'ssh_private_key', multiline: true },
          { id: 'strict', label: 'Strict', type: 'boolean' },
          { id: 'debug', label: 'Debug', type: 'boolean' },
        ],
      },
      {
        file: { 'template.conf': '[acme]\nuser={{ user }}\ntoken={{ token }}\n{% if strict %}strict{% else %}lax{% endif %}', 'template.key': '{{ key }}' },
        env: { ACME_CONF: '{{ tower.filename.conf }}', ACME_KEY_FILE: '{{tower.filename.key}}', ACME_TOKEN: '{{ token | upper }}', ACME_DEBUG: '{{ debug }}' },
        extra_vars: { acme_user: '{{ user | default("nobody") }}', acme_region: '{{ "eu" if debug else "none" }}' },
      },
    );
    const key = generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey.trimEnd();
    const id = await credential(type, { user: 'ann', token: 'tok-123', key, strict: true });
    const dir = await privateDir();
    const out = await credentialInjection(t.db, [id], dir);
    assert.equal(out.files.length, 2);
    assert.equal(await privateFile(dir, out.env.ACME_CONF), '[acme]\nuser=ann\ntoken=tok-123\nstrict');
    assert.equal(await privateFile(dir, out.env.ACME_KEY_FILE), `${key}\n`, 'a private key ends with a newline');
    assert.deepEqual([out.env.ACME_TOKEN, out.env.ACME_DEBUG], ['TOK-123', 'False']);
    assert.deepEqual(out.extraVars, { acme_user: 'ann', acme_region: 'none' });
    assert.ok(out.secrets.includes('tok-123') && out.secrets.includes('TOK-123'), 'values rendered from secrets are secrets too');
  });

  it('renders within bounds: a template that makes too much text fails clearly', async () => {
    const type = await customType({ fields: [{ id: 'blob', label: 'Blob', multiline: true }] }, { env: { BIG: '{{ blob }}'.repeat(40) } });
    const id = await credential(type, { blob: 'x'.repeat(1024 * 1024) });
    await assert.rejects(credentialInjection(t.db, [id], await privateDir()), (err: unknown) =>
      err instanceof InjectionError && /env\.BIG renders more than \d+ characters/.test(err.message));
  });

  it('later credentials win on the same variable; unknown ids are 404', async () => {
    const first = await credential('aws', { username: 'first', password: 'p1' });
    const second = await credential('aws', { username: 'second', password: 'p2' });
    const out = await credentialInjection(t.db, [first, second], await privateDir());
    assert.equal(out.env.AWS_ACCESS_KEY_ID, 'second');
    assert.deepEqual(out.secrets.sort(), ['p1', 'p2']);
    await assert.rejects(credentialInjection(t.db, [999999], await privateDir()), (err: any) => err.status === 404);
  });
});
