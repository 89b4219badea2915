import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { startRadiusResponder, type RadiusResponder } from './helpers/radius-server.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const SECRET = 'radius-shared-secret';

describe('RADIUS sign-in', () => {
  let t: TestApp;
  let server: RadiusResponder;
  let plain: User;
  let orgAdmin: User;
  let auditor: User;

  const login = (username: string, password: string) => t.post('/api/login/', { username, password }, { as: null });
  const audits = async (type: string, username: string) =>
    t.db.query<AnyRow>(`SELECT outcome, detail FROM audit_events WHERE event_type = $1 AND actor_username = $2 ORDER BY id`, [type, username]);

  before(async () => {
    t = await createTestApp();
    server = await startRadiusResponder(SECRET, { 'rad-alice': 'alice-pass', 'rad-bob': 'bob-pass', 'rad-carol': 'carol-pass', localname: 'radius-pass' });
    const org = (await newOrg(t)).id;
    plain = await newUser(t);
    orgAdmin = await newUser(t, { admin: org });
    auditor = await t.createUser('radius-sys-auditor', { is_system_auditor: true });
    await t.createUser('localname');
    const res = await t.patch('/api/v2/settings/radius/', { RADIUS_SERVER: '127.0.0.1', RADIUS_PORT: server.port, RADIUS_SECRET: SECRET, RADIUS_TIMEOUT: 1 });
    assert.equal(res.status, 200, res.text);
  });
  after(async () => {
    await server.close();
    await t.close();
  });

  it('reads the shared secret back as $encrypted$ and keeps it from everyone but superusers', async () => {
    const read = await t.get('/api/v2/settings/radius/');
    assert.equal(read.body.RADIUS_SECRET, '$encrypted$');
    assert.equal(read.body.RADIUS_PORT, server.port);
    assert.ok(!JSON.stringify((await t.db.query<AnyRow>(`SELECT value FROM settings WHERE key = 'RADIUS_SECRET'`))).includes(SECRET));
    assert.equal((await t.get('/api/v2/settings/radius/', { as: auditor })).body.RADIUS_SECRET, '$encrypted$');
    for (const who of [plain, orgAdmin]) {
      assert.equal((await t.get('/api/v2/settings/radius/', { as: who })).status, 403);
      assert.equal((await t.patch('/api/v2/settings/radius/', { RADIUS_SERVER: '10.0.0.1' }, { as: who })).status, 403);
    }
    assert.equal((await t.patch('/api/v2/settings/radius/', { RADIUS_SERVER: '10.0.0.1' }, { as: auditor })).status, 403);
    assert.equal((await t.get('/api/v2/settings/radius/')).body.RADIUS_SERVER, '127.0.0.1');
  });

  it('refuses invalid settings with a message naming the field, storing nothing', async () => {
    for (const body of [{ RADIUS_PORT: 0 }, { RADIUS_PORT: 70000 }, { RADIUS_SERVER: 'bad host/x' }, { RADIUS_TIMEOUT: 0 }, { RADIUS_SECRET: 5 }]) {
      const res = await t.patch('/api/v2/settings/radius/', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(Object.keys(body)[0] in res.body, res.text);
    }
    assert.equal((await t.get('/api/v2/settings/radius/')).body.RADIUS_PORT, server.port);
  });

  it('signs in a user the RADIUS server accepts: an external user with no local password', async () => {
    const res = await login('rad-alice', 'alice-pass');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.username, 'rad-alice');
    const [row] = await t.db.query<AnyRow>(`SELECT external_account, password FROM users WHERE username = 'rad-alice'`);
    assert.equal(row.external_account, 'radius');
    assert.ok(!row.password || row.password.startsWith('!'), 'no usable local password');
    assert.ok(server.requests.some((r) => r.username === 'rad-alice' && r.hasMessageAuthenticator));
    const [event] = await t.db.query<AnyRow>(`SELECT detail FROM audit_events WHERE event_type = 'auth.external_login' AND target_name = 'rad-alice'`);
    assert.equal(event.detail.backend, 'radius');
    assert.ok(!JSON.stringify(await t.db.query<AnyRow>('SELECT detail FROM audit_events')).includes(SECRET));
    // Again: the same user, updated, not a second one.
    assert.equal((await login('rad-alice', 'alice-pass')).status, 200);
    assert.equal((await t.db.query<AnyRow>(`SELECT count(*)::int AS n FROM users WHERE username = 'rad-alice'`))[0].n, 1);
    assert.deepEqual(await t.db.query<AnyRow>(`SELECT source, subject FROM user_identities i JOIN users u ON u.id = i.user_id WHERE u.username = 'rad-alice'`), [{ source: 'radius', subject: 'rad-alice' }]);
  });

  it('refuses a password the RADIUS server rejects, creating no user', async () => {
    const res = await login('rad-bob', 'wrong');
    assert.equal(res.status, 401);
    assert.equal(res.body.detail, 'Invalid username or password.');
    assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM users WHERE username = 'rad-bob'`)).length, 0);
    assert.equal((await audits('auth.login', 'rad-bob')).at(-1)!.detail.reason, 'invalid_credentials');
  });

  it("a RADIUS user with an existing external user's name gets a clear refusal, audited, never the account", async () => {
    // A user an LDAP server signed in, stored as that sign-in stores him (ldap_dn, linked to his DN).
    await t.db.query<AnyRow>(`INSERT INTO users (username, ldap_dn) VALUES ('rad-carol', 'uid=rad-carol,dc=example,dc=org')`);
    await t.db.query<AnyRow>(`INSERT INTO user_identities (user_id, source, subject) SELECT id, 'ldap', 'uid=rad-carol,dc=example,dc=org' FROM users WHERE username = 'rad-carol'`);
    const res = await login('rad-carol', 'carol-pass');
    assert.equal(res.status, 403, res.text);
    assert.match(res.body.detail, /username "rad-carol" already belongs to another account/);
    const [carol] = await t.db.query<AnyRow>(`SELECT id, ldap_dn, external_account FROM users WHERE username = 'rad-carol'`);
    assert.deepEqual([carol.ldap_dn, carol.external_account], ['uid=rad-carol,dc=example,dc=org', null]);
    const [conflict] = (await t.get(`/api/v2/audit_events/?event_type=auth.identity_conflict&target_id=${carol.id}`)).body.results;
    assert.deepEqual(conflict.detail, { backend: 'radius', source: 'radius', subject: 'rad-carol', username: 'rad-carol', holder: 'external' });
    assert.ok(!JSON.stringify(conflict).includes('carol-pass'));
    assert.equal((await login('rad-carol', 'wrong')).status, 401);
  });

  it('does not sign in a local user of the same name through RADIUS', async () => {
    const res = await login('localname', 'radius-pass');
    assert.equal(res.status, 401);
    assert.equal((await t.db.query<AnyRow>(`SELECT external_account FROM users WHERE username = 'localname'`))[0].external_account, null);
    assert.equal((await login('localname', 'localname-pw')).status, 200);
  });

  it('ignores answers made with another shared secret, and fails closed when none other comes', async () => {
    server.mode = { kind: 'secret', secret: 'not-the-secret' };
    try {
      const res = await login('rad-bob', 'bob-pass');
      assert.equal(res.status, 503);
      assert.match(res.body.detail, /RADIUS server could not be reached/);
      assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM users WHERE username = 'rad-bob'`)).length, 0);
      assert.equal((await audits('auth.login', 'rad-bob')).at(-1)!.detail.reason, 'source_unavailable');
    } finally {
      server.mode = { kind: 'answer' };
    }
  });

  it('fails closed within RADIUS_TIMEOUT when the server is silent, after sending the request again', async () => {
    server.mode = { kind: 'silent' };
    const before = server.requests.length;
    try {
      const started = Date.now();
      const res = await login('rad-bob', 'bob-pass');
      assert.equal(res.status, 503);
      assert.match(res.body.detail, /RADIUS server could not be reached/);
      assert.ok(Date.now() - started < 5000);
      assert.ok(server.requests.length - before >= 2, 'the request was sent again');
    } finally {
      server.mode = { kind: 'answer' };
    }
  });

  it('accepts Basic authentication through RADIUS, and a user from RADIUS gets no token unless allowed', async () => {
    const basic = { username: 'rad-alice', password: 'alice-pass' };
    assert.equal((await t.get('/api/v2/me/', { as: basic })).status, 200);
    const token = await t.post('/api/v2/tokens/', { scope: 'read' }, { as: basic });
    assert.equal(token.status, 403);
    assert.match(token.body.detail, /external authentication provider \(radius\)/);
  });

  it('does not ask RADIUS when RADIUS_SERVER is empty', async () => {
    await t.patch('/api/v2/settings/radius/', { RADIUS_SERVER: '' });
    const before = server.requests.length;
    try {
      assert.equal((await login('rad-alice', 'alice-pass')).status, 401);
      assert.equal(server.requests.length, before);
    } finally {
      await t.patch('/api/v2/settings/radius/', { RADIUS_SERVER: '127.0.0.1' });
    }
  });
});
