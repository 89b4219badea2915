import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemContextIn, type RequestContext } from '../src/api/context.ts';
import { assertCanUseCredential, decryptedInputs } from '../src/resources/credentials/credential-use.ts';
import { credentialInjection } from '../src/resources/credentials/injection.ts';
import { configureSecretKey } from '../src/secrets/encryption.ts';
import { createTestApp, grant, newOrg, newTeam, newUser, roleMatrix, roleOf, type Credentials, type TestApp, type User } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const URL = '/api/v2/credentials/';

/** An OpenSSH private key made by ssh-keygen, encrypted when a passphrase is given. */
function openSshKey(passphrase = ''): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'cred-key-')), 'key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'test', '-f', file]);
  return readFileSync(file, 'utf8');
}

const pemKey = (type: 'pkcs1' | 'pkcs8', passphrase?: string) =>
  generateKeyPairSync('rsa', {
    modulusLength: 1024,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type, format: 'pem', ...(passphrase && { cipher: 'aes-256-cbc', passphrase }) },
  }).privateKey;

describe('credentials', () => {
  let t: TestApp;
  let orgId: number;
  let machine: number;
  let aws: number;
  let net: number;
  let vault: number;
  let alice: Credentials & { id: number };
  let bob: Credentials & { id: number };
  let serial = 0;
  const unique = (prefix: string) => `${prefix}-${++serial}`;
  const typeId = async (namespace: string) => (await t.db.query<AnyRow>('SELECT id FROM credential_types WHERE namespace = $1', [namespace]))[0].id as number;
  const create = (inputs: Record<string, unknown>, extra: Record<string, unknown> = {}, as?: Credentials) =>
    t.post(URL, { name: unique('cred'), organization: orgId, credential_type: machine, inputs, ...extra }, as ? { as } : {});
  const stored = async (id: number) => (await t.db.query<AnyRow>('SELECT inputs FROM credentials WHERE id = $1', [id]))[0].inputs;
  const ctxOf = (user: { id: number; username: string }): RequestContext => ({
    user: { id: user.id, username: user.username, isSuperuser: false, isSystemAuditor: false },
    authMethod: 'basic',
    tokenScope: null,
    service: t.services,
  });

  before(async () => {
    t = await createTestApp();
    orgId = (await newOrg(t, { name: 'Cred Org' })).id;
    [machine, aws, net, vault] = await Promise.all(['ssh', 'aws', 'net', 'vault'].map(typeId));
    alice = await t.createUser('cred-alice');
    bob = await t.createUser('cred-bob');
  });
  after(() => t.close());

  describe('secrets at rest', () => {
    let cred: any;
    const key = openSshKey();

    it('POST validates, encrypts each secret, and answers $encrypted$', async () => {
      const res = await create({ username: 'deploy', password: 'hunter2-plain', ssh_key_data: key, become_method: 'sudo' }, { name: 'Deploy key' });
      assert.equal(res.status, 201, res.text);
      cred = res.body;
      assert.deepEqual(cred.inputs, { username: 'deploy', password: '$encrypted$', ssh_key_data: '$encrypted$', become_method: 'sudo' });
      assert.deepEqual([cred.kind, cred.cloud, cred.kubernetes, cred.managed, cred.credential_type], ['ssh', false, false, false, machine]);
      assert.equal(cred.summary_fields.credential_type.name, 'Machine');
      assert.deepEqual(Object.keys(cred.summary_fields.object_roles).sort(), ['admin_role', 'read_role', 'use_role']);
      assert.equal(cred.related.copy, `${URL}${cred.id}/copy/`);
      assert.equal(cred.related.owner_users, `${URL}${cred.id}/owner_users/`);
      assert.equal(cred.user, undefined);
      const row = (await t.db.query<AnyRow>('SELECT * FROM credentials WHERE id = $1', [cred.id]))[0];
      const text = JSON.stringify(row);
      assert.ok(!text.includes('hunter2-plain') && !text.includes(key.split('\n')[1]), 'no plaintext in the row');
      assert.match(row.inputs.password, /^\$encrypted\$AESGCM\$1\$[A-Za-z0-9_-]+$/);
      assert.equal(row.inputs.username, 'deploy');
      const clear = await decryptedInputs(t.db, cred.id);
      assert.deepEqual([clear.kind, clear.namespace, clear.inputs.password, clear.inputs.ssh_key_data], ['ssh', 'ssh', 'hunter2-plain', key]);
    });

    it('encrypts the same secret differently in every row', async () => {
      const other = await create({ password: 'hunter2-plain' });
      assert.notEqual((await stored(other.body.id)).password, (await stored(cred.id)).password);
    });

    it('PATCH with $encrypted$ keeps the stored secret; a new value replaces it; a missing one is removed', async () => {
      const before = await stored(cred.id);
      const keep = await t.patch(`${URL}${cred.id}/`, { inputs: { ...cred.inputs, username: 'deployer' } });
      assert.equal(keep.status, 200, keep.text);
      const kept = await stored(cred.id);
      assert.deepEqual([kept.password, kept.ssh_key_data, kept.username], [before.password, before.ssh_key_data, 'deployer']);
      assert.equal((await t.patch(`${URL}${cred.id}/`, { description: 'no inputs' })).status, 200);
      assert.equal((await stored(cred.id)).password, before.password);
      await t.patch(`${URL}${cred.id}/`, { inputs: { username: 'deployer', password: 'new-secret', ssh_key_data: '$encrypted$' } });
      assert.equal((await decryptedInputs(t.db, cred.id)).inputs.password, 'new-secret');
      await t.patch(`${URL}${cred.id}/`, { inputs: { username: 'deployer', ssh_key_data: '$encrypted$' } });
      assert.deepEqual(Object.keys(await stored(cred.id)).sort(), ['ssh_key_data', 'username']);
      const put = await t.put(`${URL}${cred.id}/`, { name: cred.name, organization: orgId, credential_type: machine });
      assert.equal(put.status, 200, put.text);
      assert.equal((await decryptedInputs(t.db, cred.id)).inputs.ssh_key_data, key);
    });

    it('refuses $encrypted$ as a new secret', async () => {
      const res = await create({ password: '$encrypted$' });
      assert.deepEqual([res.status, res.body], [400, { inputs: { password: ['$encrypted$ is a reserved keyword, and cannot be used for password.'] } }]);
    });

    it('never shows secrets in the activity stream', async () => {
      const entries = await t.db.query<AnyRow>(`SELECT operation, changes FROM activity_stream WHERE object1 = 'credential' AND object1_id = $1 ORDER BY id`, [cred.id]);
      assert.equal(entries[0].operation, 'create');
      assert.equal(entries[0].changes.inputs, 'hidden');
      assert.ok(entries.some((e) => JSON.stringify(e.changes.inputs) === '["hidden","hidden"]'));
      const all = JSON.stringify(await t.db.query<AnyRow>('SELECT changes FROM activity_stream'));
      assert.ok(!all.includes('hunter2-plain') && !all.includes('new-secret') && !all.includes('$encrypted$AESGCM'));
      const api = await t.get(`${URL}${cred.id}/activity_stream/`);
      assert.ok(!api.text.includes('hunter2') && !api.text.includes('AESGCM'));
    });

    it('refuses filtering (403) and ordering (400) on inputs', async () => {
      assert.equal((await t.get(`${URL}?inputs__icontains=deploy`)).status, 403);
      assert.equal((await t.get(`${URL}?order_by=inputs`)).status, 400);
      assert.equal((await t.get(`${URL}?user=1`)).status, 403);
      assert.equal((await t.get(`${URL}?order_by=user`)).status, 400);
      assert.deepEqual((await t.get(`${URL}?search=Deploy`)).body.results.map((r: any) => r.id), [cred.id]);
      assert.equal((await t.get(`${URL}${encodeURIComponent('Deploy key')}++Machine+ssh++${encodeURIComponent('Cred Org')}/`)).body.id, cred.id);
      assert.equal((await t.get(`${URL}?credential_type__namespace=ssh`)).status, 200);
    });

    it('with another secret key: reads still answer, using the credential fails clearly', async () => {
      const privateDir = mkdtempSync(path.join(tmpdir(), 'cred-run-'));
      configureSecretKey('not-the-key');
      try {
        const res = await t.get(`${URL}${cred.id}/`);
        assert.equal(res.status, 200);
        assert.equal(res.body.inputs.ssh_key_data, '$encrypted$');
        await assert.rejects(decryptedInputs(t.db, cred.id), /cannot be decrypted: was SVC_SECRET_KEY changed\?/);
        await assert.rejects(credentialInjection(t.db, [cred.id], privateDir), /cannot be decrypted: was SVC_SECRET_KEY changed\?/);
        const copy = await t.post(`${URL}${cred.id}/copy/`, { name: 'copy under wrong key' });
        assert.equal(copy.status, 500);
        assert.match(copy.body.detail, /credential\.ssh_key_data cannot be decrypted: was SVC_SECRET_KEY changed\?/);
      } finally {
        configureSecretKey(t.env.secretKey);
      }
      assert.equal((await decryptedInputs(t.db, cred.id)).inputs.ssh_key_data, key);
    });
  });

  describe('validation against the type', () => {
    const problem = async (inputs: Record<string, unknown>, type?: number) => {
      const res = await create(inputs, type ? { credential_type: type } : {});
      assert.equal(res.status, 400, res.text);
      return res.body.inputs;
    };

    it('refuses unknown inputs, wrong types, bad formats and dependencies (required inputs are checked at use)', async () => {
      assert.deepEqual(await problem({ user: 'x' }), { user: ["Additional properties are not allowed ('user' was unexpected)"] });
      assert.deepEqual(await problem({ username: 12 }), { username: ["12 is not of type 'string'"] });
      assert.deepEqual(await problem({ password: 12 }), { password: ["The value is not of type 'string'"] });
      assert.deepEqual(await problem({ vault_password: 'x', vault_id: 'a@b' }, vault), { vault_id: ['@ is not an allowed character'] });
      assert.deepEqual(await problem({ username: 'u', authorize_password: 'x' }, net), { authorize_password: ['cannot be set unless "Authorize" is set'] });
      assert.deepEqual(await problem({ username: 'u', authorize: 'yes' }, net), { authorize: ["'yes' is not of type 'boolean'"] });
      assert.equal((await create('not an object' as never)).status, 400);
      const nulls = await create({ username: null, become_method: '' });
      assert.equal(nulls.status, 201, nulls.text);
      assert.deepEqual(nulls.body.inputs, { username: '', become_method: '' });
    });

    it('checks choices and urls of custom types', async () => {
      const type = await t.post('/api/v2/credential_types/', {
        name: 'Choices', kind: 'cloud',
        inputs: { fields: [{ id: 'tier', label: 'Tier', choices: ['gold', 'silver'] }, { id: 'url', label: 'URL', format: 'url' }] },
      });
      assert.deepEqual(await problem({ tier: 'bronze' }, type.body.id), { tier: ["'bronze' is not one of ['gold', 'silver']"] });
      assert.deepEqual(await problem({ url: 'example.com' }, type.body.id), { url: ['Invalid URL: Missing url scheme (http, https, etc.)'] });
      const ok = await create({ tier: '', url: 'https://example.com/x' }, { credential_type: type.body.id });
      assert.deepEqual(ok.body.inputs, { tier: 'gold', url: 'https://example.com/x' }, 'an empty choice is the first one, as AWX');
    });

    it('parses private keys and wants a passphrase exactly for encrypted ones', async () => {
      const garbage = await problem({ ssh_key_data: 'not a key' });
      assert.match(garbage.ssh_key_data[0], /^Invalid certificate or key/);
      const damaged = openSshKey().replace(/\n[A-Za-z0-9+/]{20}/, '\n!!!!!!!!!!!!!!!!!!!!');
      assert.match((await problem({ ssh_key_data: damaged })).ssh_key_data[0], /damaged/);
      assert.deepEqual(await problem({ ssh_key_data: `${pemKey('pkcs1')}\n${pemKey('pkcs1')}` }), { ssh_key_data: ['Only one private key is allowed.'] });
      for (const encrypted of [openSshKey('correct horse'), pemKey('pkcs8', 'pw'), pemKey('pkcs1', 'pw')]) {
        assert.deepEqual(await problem({ ssh_key_data: encrypted }), { ssh_key_unlock: ['must be set when SSH key is encrypted.'] });
        assert.equal((await create({ ssh_key_data: encrypted, ssh_key_unlock: 'pw' })).status, 201);
      }
      for (const plain of [openSshKey(), pemKey('pkcs1'), pemKey('pkcs8')]) {
        assert.deepEqual(await problem({ ssh_key_data: plain, ssh_key_unlock: 'pw' }), { ssh_key_unlock: ['should not be set when SSH key is not encrypted.'] });
        assert.equal((await create({ ssh_key_data: plain })).status, 201);
      }
      const scm = await create({ username: 'git', ssh_key_data: openSshKey('pw'), ssh_key_unlock: 'pw' }, { credential_type: await typeId('scm') });
      assert.equal(scm.status, 201);
      // Keeping an encrypted key with $encrypted$ still needs its passphrase.
      const kept = await t.patch(`${URL}${scm.body.id}/`, { inputs: { username: 'git', ssh_key_data: '$encrypted$' } });
      assert.deepEqual([kept.status, kept.body], [400, { inputs: { ssh_key_unlock: ['must be set when SSH key is encrypted.'] } }]);
    });

    it('stores "ASK" of prompt-at-launch inputs as is', async () => {
      const res = await create({ username: 'u', password: 'ASK', become_password: 'ASK' });
      assert.deepEqual(res.body.inputs, { username: 'u', password: 'ASK', become_password: 'ASK' });
      assert.equal((await stored(res.body.id)).password, 'ASK');
    });
  });

  describe('owners, organizations and types', () => {
    it('a personal credential belongs to its user only', async () => {
      const res = await t.post(URL, { name: 'Mine', credential_type: machine, user: alice.id, inputs: { username: 'a' } }, { as: alice });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.organization, null);
      assert.deepEqual((await t.get(`${URL}${res.body.id}/owner_users/`, { as: alice })).body.results.map((u: any) => u.username), ['cred-alice']);
      assert.equal((await t.get(`${URL}${res.body.id}/`, { as: bob })).status, 403);
      assert.ok(!(await t.get(URL, { as: bob })).body.results.some((c: any) => c.id === res.body.id));
      assert.equal((await t.patch(`${URL}${res.body.id}/`, { description: 'mine' }, { as: alice })).status, 200);
      const forOther = await t.post(URL, { name: 'For Bob', credential_type: machine, user: bob.id }, { as: alice });
      assert.equal(forOther.status, 403);
      const grants = await t.db.query<AnyRow>(`SELECT detail FROM audit_events WHERE event_type = 'rbac.role_granted' AND target_id = $1`, [alice.id]);
      assert.ok(grants.some((g) => g.detail.content_type === 'credential' && g.detail.role_field === 'admin_role'));
    });

    it("a team's credential is in the team's organization, administered by its admins and used by its members", async () => {
      const team = (await newTeam(t, orgId, { name: 'Cred Team', members: [bob] })).id;
      const res = await t.post(URL, { name: 'Team cred', credential_type: machine, team, inputs: {} });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.organization, orgId);
      assert.deepEqual((await t.get(`${URL}${res.body.id}/owner_teams/`)).body.results.map((x: any) => x.name), ['Cred Team']);
      await assertCanUseCredential(ctxOf(bob), t.db, res.body.id, 'credential');
      assert.equal((await t.patch(`${URL}${res.body.id}/`, { description: 'x' }, { as: bob })).status, 403);
    });

    it('needs an owner: 400 for a superuser, 403 for others', async () => {
      const none = await t.post(URL, { name: 'Nobody', credential_type: machine });
      assert.deepEqual([none.status, none.body], [400, { detail: "Missing 'user', 'team', or 'organization'." }]);
      assert.equal((await t.post(URL, { name: 'Nobody', credential_type: machine }, { as: alice })).status, 403);
    });

    it('names are unique per organization and type', async () => {
      assert.equal((await create({}, { name: 'Twin' })).status, 201);
      const dup = await create({}, { name: 'Twin' });
      assert.deepEqual([dup.status, dup.body], [400, { __all__: ['Credential with this Organization, Name and Credential type already exists.'] }]);
      assert.equal((await create({ username: 'x', password: 'y' }, { name: 'Twin', credential_type: aws })).status, 201);
    });

    it('the type changes only while nothing uses the credential, and the inputs must suit the new type', async () => {
      const cred = (await create({ username: 'u', password: 'p' })).body;
      const misfit = await t.patch(`${URL}${cred.id}/`, { credential_type: vault });
      assert.deepEqual(misfit.body.inputs.username, ["Additional properties are not allowed ('username' was unexpected)"]);
      const changed = await t.patch(`${URL}${cred.id}/`, { credential_type: aws });
      assert.equal(changed.status, 200, changed.text);
      assert.equal(changed.body.cloud, true);
      assert.equal((await decryptedInputs(t.db, cred.id)).inputs.password, 'p');
      await t.db.query<AnyRow>(`INSERT INTO execution_environments (name, image, credential_id) VALUES ('uses-cred', 'quay.io/x', $1)`, [cred.id]);
      const refused = await t.patch(`${URL}${cred.id}/`, { credential_type: machine });
      assert.deepEqual(refused.body, {
        credential_type: ['You cannot change the credential type of the credential, as it may break the functionality of the resources using it.'],
      });
      assert.equal((await t.db.query<AnyRow>('SELECT credential_type_id FROM credentials WHERE id = $1', [cred.id]))[0].credential_type_id, aws);
    });

    it('moving to another organization takes its credential admins on both sides, and moves the roles', async () => {
      const cred = (await create({})).body;
      const other = await newOrg(t);
      await grant(t, bob, `/api/v2/organizations/${orgId}/`, 'credential_admin_role');
      assert.equal((await t.patch(`${URL}${cred.id}/`, { organization: other.id }, { as: bob })).status, 403);
      await grant(t, bob, other, 'credential_admin_role');
      assert.equal((await t.patch(`${URL}${cred.id}/`, { organization: other.id }, { as: bob })).status, 200);
      await grant(t, alice, other, 'auditor_role');
      assert.equal((await t.get(`${URL}${cred.id}/`, { as: alice })).status, 200, "the new organization's auditors read it");
    });

    it('managed credentials are read-only', async () => {
      const cred = (await create({})).body;
      await t.db.query<AnyRow>('UPDATE credentials SET managed = true WHERE id = $1', [cred.id]);
      const res = await t.patch(`${URL}${cred.id}/`, { description: 'x' });
      assert.deepEqual([res.status, res.body], [403, { detail: 'Modifications not allowed for managed credentials' }]);
      assert.equal((await t.delete(`${URL}${cred.id}/`)).status, 403);
    });

    it('go with their organization, roles included', async () => {
      const org = (await newOrg(t)).id;
      const cred = (await create({}, { organization: org })).body;
      assert.equal((await t.delete(`/api/v2/organizations/${org}/`)).status, 204);
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM credentials WHERE id = $1', [cred.id])).length, 0);
      assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM roles WHERE content_type = 'credential' AND object_id = $1`, [cred.id])).length, 0);
    });
  });

  describe('copy, audit and use', () => {
    it('POST copy/ {name} makes a new credential with the same secrets, encrypted anew', async () => {
      const source = (await create({ username: 'u', password: 'copied-secret' })).body;
      assert.deepEqual((await t.get(`${URL}${source.id}/copy/`)).body.can_copy, true);
      assert.deepEqual((await t.post(`${URL}${source.id}/copy/`, {})).body, { name: ['This field is required.'] });
      const copy = await t.post(`${URL}${source.id}/copy/`, { name: 'The copy' });
      assert.equal(copy.status, 201, copy.text);
      assert.deepEqual([copy.body.organization, copy.body.credential_type, copy.body.inputs.password], [orgId, machine, '$encrypted$']);
      assert.equal((await decryptedInputs(t.db, copy.body.id)).inputs.password, 'copied-secret');
      assert.notEqual((await stored(copy.body.id)).password, (await stored(source.id)).password);
      assert.equal((await t.post(`${URL}${source.id}/copy/`, { name: 'x' }, { as: alice })).status, 403);
    });

    it('GET of one credential writes credential.read with the actor; lists do not', async () => {
      const cred = (await create({ password: 'audited-secret' })).body;
      const count = async () => (await t.db.query<AnyRow>(`SELECT count(*)::int AS n FROM audit_events WHERE event_type = 'credential.read'`))[0].n;
      const before = await count();
      await t.get(URL);
      assert.equal(await count(), before);
      assert.equal((await t.get(`${URL}${cred.id}/`)).status, 200);
      const [event] = await t.db.query<AnyRow>(`SELECT * FROM audit_events WHERE event_type = 'credential.read' ORDER BY id DESC LIMIT 1`);
      assert.deepEqual([event.actor_username, event.target_type, event.target_id, event.target_name], ['admin', 'credential', cred.id, cred.name]);
      assert.ok(!JSON.stringify(event).includes('audited-secret') && !JSON.stringify(event).includes('encrypted'));
      assert.equal((await t.get(`${URL}${cred.id}/`, { as: alice })).status, 403);
      assert.equal(await count(), before + 1, 'a refused read is no read');
    });

    it('assertCanUseCredential wants use_role and a kind that fits', async () => {
      const cred = (await create({})).body;
      await assertCanUseCredential(systemContextIn(t.services), t.db, cred.id, 'credential', ['ssh']);
      await assert.rejects(assertCanUseCredential(ctxOf(alice), t.db, cred.id, 'credential'), (err: any) => err.status === 403);
      await grant(t, alice, cred, 'use_role');
      await assertCanUseCredential(ctxOf(alice), t.db, cred.id, 'credential');
      await assert.rejects(assertCanUseCredential(ctxOf(alice), t.db, cred.id, 'credential', ['scm']), (err: any) =>
        err.status === 400 && JSON.stringify(err.body) === JSON.stringify({ credential: ["Credential kind must be 'scm'."] }));
      await assert.rejects(assertCanUseCredential(systemContextIn(t.services), t.db, 999999, 'vault_credential'), (err: any) => err.status === 400 && 'vault_credential' in err.body);
      assert.equal((await t.get(`${URL}${cred.id}/`, { as: alice })).status, 200, 'use_role reads');
    });
  });
});

// The role matrix: every caller against list, detail, create, update, delete, grant and copy of
// credentials, and writes of credential types. Each cell (row x caller) is one test.
describe('credential role matrix', () => {
  const CALLERS = ['anonymous', 'outsider', 'org member', 'org auditor', 'org admin', 'credential admin', 'credential user', 'system auditor', 'superuser'] as const;
  type Caller = (typeof CALLERS)[number];
  type Expectation = Record<Caller, unknown>;
  const only = (allowed: readonly Caller[], yes: unknown, no: unknown = 403): Expectation =>
    Object.fromEntries(CALLERS.map((c) => [c, c === 'anonymous' ? 401 : allowed.includes(c) ? yes : no])) as Expectation;
  const MANAGERS: Caller[] = ['org admin', 'credential admin', 'superuser'];
  const READERS: Caller[] = ['org auditor', 'org admin', 'credential admin', 'credential user', 'system auditor', 'superuser'];

  let t: TestApp;
  let serial = 0;
  const unique = (prefix: string) => `${prefix}-${++serial}`;
  let orgA: number;
  let credA: number;
  let machine: number;
  let customType: number;
  const u: Record<string, User> = {};
  const userOf = (caller: Caller) =>
    ({
      anonymous: null, outsider: u.outsider, 'org member': u.member, 'org auditor': u.auditor, 'org admin': u.orgadmin,
      'credential admin': u.credadmin, 'credential user': u.user, 'system auditor': u.sysauditor, superuser: u.admin,
    })[caller];
  const send = async (caller: Caller, method: string, url: string, body?: unknown) => (await t.request(method, url, { as: userOf(caller), body })).status;
  const ok = async (method: string, url: string, body?: unknown) => {
    const res = await t.request(method, url, { body });
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${res.text}`);
    return res.body;
  };
  const freshCredential = async () => (await ok('POST', URL, { name: unique('mx-cred'), organization: orgA, credential_type: machine, inputs: { username: 'u' } })).id;

  before(async () => {
    t = await createTestApp();
    orgA = (await newOrg(t)).id;
    const orgB = (await newOrg(t)).id;
    machine = (await t.db.query<AnyRow>(`SELECT id FROM credential_types WHERE namespace = 'ssh'`))[0].id;
    u.admin = { ...(await t.get('/api/v2/users/admin/')).body, username: 'admin', password: 'admin-password' };
    const byRole = await roleMatrix(t, `/api/v2/organizations/${orgA}/`, { member: 'member_role', auditor: 'auditor_role', orgadmin: 'admin_role', credadmin: 'credential_admin_role' });
    Object.assign(u, byRole, { outsider: byRole.nobody });
    u.user = await newUser(t);
    u.sysauditor = await newUser(t, { is_system_auditor: true });
    credA = (await ok('POST', URL, { name: 'A cred', organization: orgA, credential_type: machine, inputs: { username: 'u', password: 'pw' } })).id;
    await ok('POST', URL, { name: 'B cred', organization: orgB, credential_type: machine, inputs: {} });
    await grant(t, u.user, `${URL}${credA}/`, 'use_role');
    const personal = await t.post(URL, { name: 'Personal', credential_type: machine, user: u.outsider.id, inputs: {} }, { as: u.outsider });
    assert.equal(personal.status, 201, personal.text);
    customType = (await ok('POST', '/api/v2/credential_types/', { name: 'Matrix type', kind: 'net', inputs: { fields: [{ id: 'x', label: 'X' }] } })).id;
  });
  after(() => t.close());

  const list = (names: string[]) => ({ count: names.length, names: [...names].sort() });
  const cells: { name: string; run(caller: Caller): Promise<unknown>; expected: Expectation }[] = [
    {
      name: 'GET /credentials/',
      run: async (c) => {
        const res = await t.get(`${URL}?page_size=200&name__in=A cred,B cred,Personal`, { as: userOf(c) });
        return res.status === 200 ? { count: res.body.count, names: res.body.results.map((r: any) => r.name).sort() } : res.status;
      },
      expected: {
        anonymous: 401, outsider: list(['Personal']), 'org member': list([]), 'org auditor': list(['A cred']), 'org admin': list(['A cred']),
        'credential admin': list(['A cred']), 'credential user': list(['A cred']), 'system auditor': list(['A cred', 'B cred', 'Personal']),
        superuser: list(['A cred', 'B cred', 'Personal']),
      },
    },
    {
      name: 'GET /credentials/A/ (inputs as read)',
      run: async (c) => {
        const res = await t.get(`${URL}${credA}/`, { as: userOf(c) });
        return res.status === 200 ? res.body.inputs : res.status;
      },
      expected: only(READERS, { username: 'u', password: '$encrypted$' }),
    },
    {
      name: 'user_capabilities of A',
      run: async (c) => {
        const res = await t.get(`${URL}${credA}/`, { as: userOf(c) });
        return res.status === 200 ? res.body.summary_fields.user_capabilities : res.status;
      },
      // As AWX's CredentialSerializer: edit, delete, copy, and use (the use_role).
      expected: {
        ...only(MANAGERS, { edit: true, delete: true, copy: true, use: true }, { edit: false, delete: false, copy: false, use: false }),
        'credential user': { edit: false, delete: false, copy: false, use: true },
        outsider: 403,
        'org member': 403,
      },
    },
    { name: 'GET /credential_types/', run: (c) => send(c, 'GET', '/api/v2/credential_types/'), expected: only(CALLERS, 200) },
    {
      name: 'POST /credentials/ in A',
      run: (c) => send(c, 'POST', URL, { name: unique('mx-new'), organization: orgA, credential_type: machine, inputs: {} }),
      expected: only(MANAGERS, 201),
    },
    {
      name: 'POST /credentials/ {user: oneself}',
      run: (c) => send(c, 'POST', URL, { name: unique('mx-own'), credential_type: machine, user: userOf(c)?.id ?? 1, inputs: {} }),
      expected: only(CALLERS, 201),
    },
    { name: 'PATCH /credentials/A/', run: (c) => send(c, 'PATCH', `${URL}${credA}/`, { description: unique('by') }), expected: only(MANAGERS, 200) },
    { name: 'DELETE /credentials/<one of A>/', run: async (c) => send(c, 'DELETE', `${URL}${await freshCredential()}/`), expected: only(MANAGERS, 204) },
    {
      name: "POST /roles/<A's use_role>/users/ {a member of A}",
      run: async (c) => {
        const user = await newUser(t, { member: orgA });
        return send(c, 'POST', `/api/v2/roles/${await roleOf(t, `${URL}${credA}/`, 'use_role')}/users/`, { id: user.id });
      },
      expected: only(MANAGERS, 204),
    },
    { name: 'POST /credentials/A/copy/', run: (c) => send(c, 'POST', `${URL}${credA}/copy/`, { name: unique('mx-copy') }), expected: only(MANAGERS, 201) },
    {
      name: 'POST /credential_types/',
      run: (c) => send(c, 'POST', '/api/v2/credential_types/', { name: unique('mx-type'), kind: 'cloud', inputs: {} }),
      expected: only(['superuser'], 201),
    },
    { name: 'PATCH /credential_types/<custom>/', run: (c) => send(c, 'PATCH', `/api/v2/credential_types/${customType}/`, { description: unique('d') }), expected: only(['superuser'], 200) },
    {
      name: 'DELETE /credential_types/<unused custom>/',
      run: async (c) => send(c, 'DELETE', `/api/v2/credential_types/${(await ok('POST', '/api/v2/credential_types/', { name: unique('mx-gone'), kind: 'cloud' })).id}/`),
      expected: only(['superuser'], 204),
    },
    { name: 'PATCH /credential_types/<Machine>/', run: (c) => send(c, 'PATCH', `/api/v2/credential_types/${machine}/`, { description: 'x' }), expected: only([], 403) },
  ];

  for (const cell of cells) {
    describe(cell.name, () => {
      for (const caller of CALLERS) {
        it(`${caller} → ${JSON.stringify(cell.expected[caller])}`, async () => {
          assert.deepEqual(await cell.run(caller), cell.expected[caller]);
        });
      }
    });
  }
});
