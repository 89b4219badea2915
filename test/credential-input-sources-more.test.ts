import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { sigV4Authorization } from '../src/resources/credential-input-sources/lookups/aws-secrets-manager.ts';
import { startSecretStoresServer, type SecretStoresServer } from './helpers/secret-stores-server.ts';

const SECRET = 'looked-up-secret-3e9a41';
const CLIENT = { id: 'drover-client', secret: 'client-secret-c0ffee' };
const TOKEN = 'store-token-a1b2c3';

describe('credential input sources: the cloud secret stores, Conjur and Centrify', () => {
  let t: TestApp;
  let store: SecretStoresServer;
  let types: Record<string, number>;
  let org: number;
  let plain: User;
  let otherAdmin: User;

  /** The type's test endpoint: 202 when the lookup found a value; nothing found is answered. */
  const test = async (namespace: string, inputs: Record<string, unknown>, metadata: Record<string, unknown>) => {
    const res = await t.post(`/api/v2/credential_types/${types[namespace]}/test/`, { inputs, metadata });
    assert.ok(!JSON.stringify(res.body).includes(SECRET) && !JSON.stringify(res.body).includes(CLIENT.secret));
    return res;
  };
  const lastRequests = (n: number) => store.requests.slice(-n).map((r) => `${r.method} ${r.path}`);

  before(async () => {
    store = await startSecretStoresServer({ client: CLIENT, secret: SECRET, token: TOKEN });
    // Azure's authority, DSV's tenant and AWS's endpoint are fixed hosts: the stand-in takes their place.
    t = await createTestApp({ SVC_SECRET_STORE_URL: store.url });
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] })).status, 200);
    const listed = (await t.get('/api/v2/credential_types/?kind=external&page_size=50')).body.results;
    types = Object.fromEntries(listed.map((row: { namespace: string; id: number }) => [row.namespace, row.id]));
    org = (await newOrg(t)).id;
    plain = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: (await newOrg(t)).id });
  });
  after(async () => {
    await t?.close();
    await store?.close();
  });

  it('Azure Key Vault: client credentials at the authority, then the secret (a version when given)', async () => {
    const inputs = { url: store.url, client: CLIENT.id, secret: CLIENT.secret, tenant: 'contoso.onmicrosoft.com' };
    const ok = await test('azure_kv', inputs, { secret_field: 'app-secret' });
    assert.equal(ok.status, 202, JSON.stringify(ok.body));
    assert.deepEqual(lastRequests(2), ['POST /contoso.onmicrosoft.com/oauth2/v2.0/token', 'GET /secrets/app-secret?api-version=7.4']);
    assert.equal((await test('azure_kv', inputs, { secret_field: 'app-secret', secret_version: 'v2' })).status, 202);
    assert.equal(store.requests.at(-1)!.path, '/secrets/app-secret/v2?api-version=7.4');
    assert.deepEqual((await test('azure_kv', { ...inputs, secret: 'wrong' }, { secret_field: 'app-secret' })).body, { inputs: 'HTTP 401' });
    assert.deepEqual((await test('azure_kv', { ...inputs, tenant: '../x' }, { secret_field: 'app-secret' })).body, { inputs: 'The tenant ID must be a GUID or a domain name.' });
  });

  it('Thycotic Secret Server: a password grant, then the field of the secret', async () => {
    const inputs = { server_url: `${store.url}/SecretServer`, username: CLIENT.id, password: CLIENT.secret };
    const ok = await test('thycotic_tss', inputs, { secret_id: '42', secret_field: 'password' });
    assert.equal(ok.status, 202, JSON.stringify(ok.body));
    assert.deepEqual(lastRequests(2), ['POST /SecretServer/oauth2/token', 'GET /SecretServer/api/v1/secrets/42/fields/password']);
    assert.deepEqual((await test('thycotic_tss', inputs, { secret_id: '43', secret_field: 'password' })).body, { inputs: 'HTTP 404' });
    assert.deepEqual((await test('thycotic_tss', inputs, { secret_id: '4/2', secret_field: 'password' })).body, { inputs: 'The secret ID must be an integer.' });
    assert.deepEqual((await test('thycotic_tss', { ...inputs, password: 'wrong' }, { secret_id: '42', secret_field: 'password' })).body, { inputs: 'HTTP 400' });
  });

  it('Thycotic DevOps Secrets Vault: a token from the tenant, then a field of the secret, base64 decoded when asked', async () => {
    const inputs = { tenant: 'acme', tld: 'com', client_id: CLIENT.id, client_secret: CLIENT.secret };
    const ok = await test('thycotic_dsv', inputs, { path: '/app/db', secret_field: 'password', secret_decoding: 'No Decoding' });
    assert.equal(ok.status, 202, JSON.stringify(ok.body));
    assert.deepEqual(lastRequests(2), ['POST /v1/token', 'GET /v1/secrets/app/db']);
    assert.equal((await test('thycotic_dsv', inputs, { path: '/app/db', secret_field: 'encoded', secret_decoding: 'Decode Base64' })).status, 202);
    assert.deepEqual((await test('thycotic_dsv', inputs, { path: '/app/db', secret_field: 'nope', secret_decoding: 'No Decoding' })).body, { inputs: 'nope is not present at /app/db' });
    assert.deepEqual((await test('thycotic_dsv', { ...inputs, tenant: 'evil.example/x' }, { path: '/app/db', secret_field: 'password' })).body, { inputs: 'The tenant must be a single DNS label.' });
  });

  it('AWS Secrets Manager: GetSecretValue signed with SigV4', async () => {
    const inputs = { aws_access_key: 'AKIDEXAMPLE', aws_secret_key: CLIENT.secret };
    const ok = await test('aws_secretsmanager_credential', inputs, { region_name: 'eu-west-1', secret_name: 'app/db' });
    assert.equal(ok.status, 202, JSON.stringify(ok.body));
    const sent = store.requests.at(-1)!;
    assert.equal(sent.headers['x-amz-target'], 'secretsmanager.GetSecretValue');
    assert.match(String(sent.headers.authorization), /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/secretsmanager\/aws4_request, /);
    assert.deepEqual((await test('aws_secretsmanager_credential', { ...inputs, aws_secret_key: 'wrong' }, { region_name: 'eu-west-1', secret_name: 'app/db' })).body, { inputs: 'HTTP 403' });
    assert.deepEqual((await test('aws_secretsmanager_credential', inputs, { region_name: 'eu-west-1', secret_name: 'other' })).body, { inputs: 'HTTP 400' });
    assert.deepEqual((await test('aws_secretsmanager_credential', inputs, { region_name: 'x.evil/', secret_name: 'app/db' })).body, { inputs: 'Invalid region x.evil/.' });
  });

  it('signs as AWS\'s Signature Version 4 test suite (get-vanilla)', () => {
    const authorization = sigV4Authorization({
      method: 'GET', path: '/', headers: { host: 'example.amazonaws.com', 'x-amz-date': '20150830T123600Z' }, body: '',
      region: 'us-east-1', service: 'service', accessKey: 'AKIDEXAMPLE', secretKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', amzDate: '20150830T123600Z',
    });
    assert.equal(authorization, 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31');
  });

  it('Conjur: the API key exchanged for a token, then the variable', async () => {
    const inputs = { url: store.url, account: 'acme', username: CLIENT.id, api_key: CLIENT.secret };
    const ok = await test('conjur', inputs, { secret_path: 'prod/db/password' });
    assert.equal(ok.status, 202, JSON.stringify(ok.body));
    assert.deepEqual(lastRequests(2), [`POST /authn/acme/${CLIENT.id}/authenticate`, 'GET /secrets/acme/variable/prod%2Fdb%2Fpassword']);
    // Not found at Conjur's paths: Conjur Cloud's are tried, then the failure answered.
    assert.deepEqual((await test('conjur', inputs, { secret_path: 'missing' })).body, { inputs: 'HTTP 404' });
    assert.equal(store.requests.at(-1)!.path, '/api/secrets/acme/variable/missing');
  });

  it('Centrify: an OAuth2 token, the account found, its password checked out', async () => {
    const inputs = { url: store.url, client_id: CLIENT.id, client_password: CLIENT.secret };
    const ok = await test('centrify_vault_kv', inputs, { 'system-name': 'db01', 'account-name': 'root' });
    assert.equal(ok.status, 202, JSON.stringify(ok.body));
    assert.deepEqual(lastRequests(3), ['POST /oauth2/token/awx', 'POST /Redrock/query', 'POST /ServerManage/CheckoutPassword']);
    assert.deepEqual((await test('centrify_vault_kv', inputs, { 'system-name': 'db02', 'account-name': 'root' })).body, { inputs: 'Error Detected!! Check the Inputs' });
  });

  it('a plain user and another organization\'s admin cannot test a credential of the organization', async () => {
    const created = await t.post('/api/v2/credentials/', {
      name: 'DSV', organization: org, credential_type: types.thycotic_dsv, inputs: { tenant: 'acme', client_id: CLIENT.id, client_secret: CLIENT.secret },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const asAdmin = await t.post(`/api/v2/credentials/${created.body.id}/test/`, { metadata: { path: '/app/db', secret_field: 'password', secret_decoding: 'No Decoding' } });
    assert.equal(asAdmin.status, 202, JSON.stringify(asAdmin.body));
    const before = store.requests.length;
    for (const as of [plain, otherAdmin]) {
      const res = await t.post(`/api/v2/credentials/${created.body.id}/test/`, { metadata: { path: '/app/db', secret_field: 'password' } }, { as });
      assert.ok([403, 404].includes(res.status), `${res.status}`);
    }
    assert.equal(store.requests.length, before);
  });
});
