import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createTestApp, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { startCyberArkServer, type CyberArkServer } from './helpers/cyberark-server.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';
import { startVaultServer, type VaultServer } from './helpers/vault-server.ts';

const API_TOKEN = 'api-token-from-vault-5f1c9e';
const DB_PASSWORD = 'db-password-from-ccp-88a0d2';
const VAULT_TOKEN = 'vault-root-token-71b3';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** Compares what the credentials injected with the expected hashes: prints "match", never the values. */
const PLAYBOOK = `- hosts: all
  gather_facts: false
  tasks:
    - name: compare
      debug:
        msg: "{{ 'match' if (lookup('env', 'APP_TOKEN') | hash('sha256')) == '${sha(API_TOKEN)}' and (db_password | hash('sha256')) == '${sha(DB_PASSWORD)}' else 'differ' }}"
`;

describe('credential input sources', () => {
  let t: TestApp;
  let vault: VaultServer;
  let ccp: CyberArkServer;
  let repo: GitRepository;
  let org: number;
  let other: number;
  let types: Record<string, number>;
  let vaultCred: number;
  let ccpCred: number;
  let appType: number;
  let target: number;
  let plain: User;
  let otherAdmin: User;

  const allow = async (on: boolean) => assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: on ? ['127.0.0.1'] : [] })).status, 200);
  const credential = async (name: string, type: number, inputs: Record<string, unknown>, organization = org, as?: User) => {
    const res = await t.post('/api/v2/credentials/', { name, organization, credential_type: type, inputs }, as ? { as } : {});
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id as number;
  };
  const kvMetadata = { secret_path: '/secret/app/api', secret_key: 'token' };

  before(async () => {
    t = await createTestApp();
    vault = await startVaultServer({
      tokens: [VAULT_TOKEN, 'approle-token-1'],
      v1: { 'kv/app/api': { token: API_TOKEN } },
      v2: { secret: { 'app/api': { token: API_TOKEN } } },
      approle: { role_id: 'role-1', secret_id: 'secret-1', token: 'approle-token-1' },
      ssh: { signer: 'ssh-ed25519-cert-v01@openssh.com SIGNED' },
    });
    ccp = await startCyberArkServer('drover-app', { 'Safe=Prod;Object=db': { Content: DB_PASSWORD, UserName: 'dbadmin', Address: 'db.example' } });
    repo = await makeRepository({ 'compare.yml': PLAYBOOK });
    org = (await newOrg(t)).id;
    other = (await newOrg(t)).id;
    const listed = (await t.get('/api/v2/credential_types/?kind=external&page_size=50')).body.results;
    types = Object.fromEntries(listed.map((row: { namespace: string; id: number }) => [row.namespace, row.id]));
    vaultCred = await credential('Vault', types.hashivault_kv, { url: vault.url, token: VAULT_TOKEN, api_version: 'v2' });
    ccpCred = await credential('CCP', types.aim, { url: ccp.url, app_id: 'drover-app', verify: true });
    const appTypeRes = await t.post('/api/v2/credential_types/', {
      name: 'App secrets', kind: 'cloud',
      inputs: { fields: [{ id: 'token', label: 'Token', type: 'string', secret: true }, { id: 'db_password', label: 'DB password', type: 'string', secret: true }], required: ['token', 'db_password'] },
      injectors: { env: { APP_TOKEN: '{{ token }}' }, extra_vars: { db_password: '{{ db_password }}' } },
    });
    assert.equal(appTypeRes.status, 201, JSON.stringify(appTypeRes.body));
    appType = appTypeRes.body.id;
    target = await credential('App', appType, {});
    plain = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: other });
  });
  after(async () => {
    await t?.close();
    await vault?.close();
    await ccp?.close();
    await repo?.remove();
  });

  it('lists the external credential types of AWX 24.6.1 with their metadata', async () => {
    assert.deepEqual(Object.keys(types).sort(), [
      'aim', 'aws_secretsmanager_credential', 'azure_kv', 'centrify_vault_kv', 'conjur', 'hashivault_kv', 'hashivault_ssh', 'thycotic_dsv', 'thycotic_tss',
    ]);
    const kv = (await t.get(`/api/v2/credential_types/${types.hashivault_kv}/`)).body;
    assert.equal(kv.name, 'HashiCorp Vault Secret Lookup');
    assert.equal(kv.kind, 'external');
    assert.deepEqual(kv.inputs.metadata.map((f: { id: string }) => f.id), ['secret_backend', 'secret_path', 'auth_path', 'secret_key', 'secret_version']);
    assert.deepEqual(kv.inputs.required, ['url', 'secret_path', 'api_version', 'secret_key']);
  });

  it('test endpoints: refused without the allow-list, then 202 or 400 with what went wrong', async () => {
    await allow(false);
    const refused = await t.post(`/api/v2/credentials/${vaultCred}/test/`, { metadata: kvMetadata });
    assert.equal(refused.status, 400);
    assert.match(refused.body.inputs, /OUTBOUND_URL_ALLOWLIST/);
    assert.equal(vault.requests.length, 0);
    await allow(true);
    assert.equal((await t.post(`/api/v2/credentials/${vaultCred}/test/`, { metadata: kvMetadata })).status, 202);
    assert.equal(vault.requests.at(-1)!.path, '/v1/secret/data/app/api');
    assert.equal(vault.requests.at(-1)!.token, VAULT_TOKEN);
    const missing = await t.post(`/api/v2/credentials/${vaultCred}/test/`, { metadata: { ...kvMetadata, secret_key: 'nope' } });
    assert.deepEqual(missing.body, { inputs: 'nope is not present at /secret/app/api' });
    const badToken = await t.post(`/api/v2/credentials/${vaultCred}/test/`, { inputs: { token: 'wrong' }, metadata: kvMetadata });
    assert.deepEqual([badToken.status, badToken.body], [400, { inputs: 'HTTP 403' }]);
    // The type's test: inputs as given. KV v1 with AppRole login.
    const v1 = await t.post(`/api/v2/credential_types/${types.hashivault_kv}/test/`, {
      inputs: { url: vault.url, role_id: 'role-1', secret_id: 'secret-1', api_version: 'v1' }, metadata: { secret_path: 'kv/app/api', secret_key: 'token' },
    });
    assert.equal(v1.status, 202, JSON.stringify(v1.body));
    assert.deepEqual(vault.requests.slice(-2).map((r) => [r.method, r.path, r.token]), [['POST', '/v1/auth/approle/login', undefined], ['GET', '/v1/kv/app/api', 'approle-token-1']]);
    const ssh = await t.post(`/api/v2/credential_types/${types.hashivault_ssh}/test/`, {
      inputs: { url: vault.url, token: VAULT_TOKEN }, metadata: { public_key: 'ssh-ed25519 AAAAkey', secret_path: 'ssh', role: 'signer' },
    });
    assert.equal(ssh.status, 202, JSON.stringify(ssh.body));
    assert.equal(vault.requests.at(-1)!.path, '/v1/ssh/sign/signer');
    const aim = await t.post(`/api/v2/credentials/${ccpCred}/test/`, { metadata: { object_query: 'Safe=Prod;Object=db' } });
    assert.equal(aim.status, 202, JSON.stringify(aim.body));
    assert.match(ccp.requests.at(-1)!, /^\/AIMWebService\/api\/Accounts\?AppId=drover-app&Query=Safe%3DProd%3BObject%3Ddb&QueryFormat=Exact$/);
    const badTenant = await t.post(`/api/v2/credential_types/${types.azure_kv}/test/`, { inputs: {}, metadata: {} });
    assert.deepEqual([badTenant.status, badTenant.body], [400, { inputs: 'The tenant ID must be a GUID or a domain name.' }]);
    // Nothing found is ever answered.
    assert.ok(!JSON.stringify([missing.body, aim.body]).includes(API_TOKEN));
  });

  it('validates input sources as AWX', async () => {
    const url = '/api/v2/credential_input_sources/';
    const base = { target_credential: target, source_credential: vaultCred, input_field_name: 'token', metadata: kvMetadata };
    const machine = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    const notExternal = await credential('Plain machine', machine, { username: 'u' });
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ source_credential: notExternal }, 'source_credential', /Source must be an external credential/],
      [{ target_credential: ccpCred, input_field_name: 'app_id' }, 'target_credential', /Target must be a non-external credential/],
      [{ input_field_name: 'nope' }, 'input_field_name', /options are db_password, token/],
      [{ metadata: { secret_path: 'x' } }, 'metadata', /required for HashiCorp Vault Secret Lookup/],
      [{ metadata: { ...kvMetadata, extra: 'x' } }, 'metadata', /Additional properties are not allowed/],
      [{ metadata: { ...kvMetadata, secret_version: 3 } }, 'metadata', /is not of type 'string'/],
    ];
    for (const [change, field, message] of cases) {
      const res = await t.post(url, { ...base, ...change });
      assert.equal(res.status, 400, `${JSON.stringify(change)}: ${JSON.stringify(res.body)}`);
      assert.match(JSON.stringify(res.body[field]), message);
    }
    assert.equal((await t.get(url)).body.count, 0);
  });

  it('links inputs through both lists; one source per input', async () => {
    const created = await t.post('/api/v2/credential_input_sources/', { target_credential: target, source_credential: vaultCred, input_field_name: 'token', metadata: kvMetadata });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.type, 'credential_input_source');
    assert.deepEqual(created.body.metadata, kvMetadata);
    const again = await t.post('/api/v2/credential_input_sources/', { target_credential: target, source_credential: ccpCred, input_field_name: 'token', metadata: { object_query: 'q' } });
    assert.equal(again.status, 400);
    const sub = await t.post(`/api/v2/credentials/${target}/input_sources/`, { source_credential: ccpCred, input_field_name: 'db_password', metadata: { object_query: 'Safe=Prod;Object=db', object_property: 'password' } });
    assert.equal(sub.status, 201, JSON.stringify(sub.body));
    assert.equal(sub.body.target_credential, target);
    const listed = (await t.get(`/api/v2/credentials/${target}/input_sources/`)).body;
    assert.deepEqual(listed.results.map((r: { input_field_name: string }) => r.input_field_name).sort(), ['db_password', 'token']);
    const patched = await t.patch(`/api/v2/credential_input_sources/${sub.body.id}/`, { metadata: { object_query_format: 'Fuzzy' } });
    assert.equal(patched.status, 400);
    assert.match(JSON.stringify(patched.body.metadata), /required for|is not one of/);
  });

  it('a plain user and another organization\'s admin can neither link nor read', async () => {
    const url = '/api/v2/credential_input_sources/';
    const body = { target_credential: target, source_credential: vaultCred, input_field_name: 'db_password', metadata: kvMetadata };
    assert.equal((await t.post(url, body, { as: plain })).status, 403);
    assert.equal((await t.get(url, { as: plain })).body.count, 0);
    const [first] = (await t.get(url)).body.results;
    assert.equal((await t.get(`${url}${first.id}/`, { as: plain })).status, 403);
    assert.equal((await t.get(`${url}${first.id}/`, { as: otherAdmin })).status, 403);
    assert.equal((await t.delete(`${url}${first.id}/`, { as: otherAdmin })).status, 403);
    // Their own target, my source: no use of my Vault credential.
    const theirs = await credential('Theirs', appType, {}, other, otherAdmin);
    assert.equal((await t.post(url, { ...body, target_credential: theirs }, { as: otherAdmin })).status, 403);
    assert.equal((await t.post(`/api/v2/credentials/${theirs}/input_sources/`, { source_credential: vaultCred, input_field_name: 'token', metadata: kvMetadata }, { as: otherAdmin })).status, 403);
    // Their own source, my target: no admin of my credential.
    const theirVault = await credential('Their vault', types.hashivault_kv, { url: vault.url, token: VAULT_TOKEN, api_version: 'v2' }, other, otherAdmin);
    assert.equal((await t.post(url, { ...body, source_credential: theirVault }, { as: otherAdmin })).status, 403);
    assert.equal((await t.post(`/api/v2/credentials/${vaultCred}/test/`, { metadata: kvMetadata }, { as: otherAdmin })).status, 403);
    assert.equal((await t.get(url, { as: otherAdmin })).body.count, 0);
  });

  it('a job gets the looked-up values, which are stored nowhere', async () => {
    const project = (await t.post('/api/v2/projects/', { name: 'Compare', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Local', organization: org, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    await t.post('/api/v2/hosts/', { name: 'h1', inventory });
    const jt = (await t.post('/api/v2/job_templates/', { name: 'Compare', project, inventory, playbook: 'compare.yml' })).body;
    assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/credentials/`, { id: target })).status, 204);
    const launched = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, {});
    assert.equal(launched.status, 201, JSON.stringify(launched.body));
    const job = await waitForRun(t, launched.body.url, 120_000);
    assert.equal(job.status, 'successful', job.result_traceback || job.job_explanation);
    const stdout = (await t.get(`/api/v2/jobs/${job.id}/stdout/?format=txt`)).text;
    assert.match(stdout, /"msg": "match"/);
    const everything = await t.db.query<{ t: string }>(
      `SELECT to_jsonb(x)::text AS t FROM unified_jobs x UNION ALL SELECT to_jsonb(e)::text FROM job_events e
       UNION ALL SELECT to_jsonb(a)::text FROM activity_stream a UNION ALL SELECT to_jsonb(c)::text FROM credentials c
       UNION ALL SELECT to_jsonb(s)::text FROM credential_input_sources s`,
    );
    for (const secret of [API_TOKEN, DB_PASSWORD]) assert.ok(!everything.some((row) => row.t.includes(secret)), 'a looked-up secret was stored');
  });

  it('a failed lookup fails the run with a clear explanation', async () => {
    const [source] = (await t.get(`/api/v2/credentials/${target}/input_sources/?input_field_name=token`)).body.results;
    assert.equal((await t.patch(`/api/v2/credential_input_sources/${source.id}/`, { metadata: { ...kvMetadata, secret_path: '/secret/gone' } })).status, 200);
    const [jt] = (await t.get('/api/v2/job_templates/?name=Compare')).body.results;
    const job = await waitForRun(t, (await t.post(`/api/v2/job_templates/${jt.id}/launch/`, {})).body.url, 120_000);
    assert.equal(job.status, 'error');
    assert.match(job.job_explanation, /Could not look up input token of credential "App" from credential "Vault" \(HashiCorp Vault Secret Lookup\): HTTP 404/);
  });
});
