import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { createTestApp, setCookies, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { lastLoginFailure, returnFromProvider, ssoFailure, startSso } from './helpers/sso-browser.ts';
import { startOidcProvider, startSilentServer, type OidcAccount, type TestOidcProvider } from './helpers/oidc-provider.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const BASE = 'http://drover.test';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('Generic OIDC sign-in', () => {
  /** The provider's accounts by subject; a test changes a username here as the provider's admin would. */
  const accounts: Record<string, OidcAccount> = {
    alice: { email: 'alice@example.com', preferred_username: 'alice.oidc', given_name: 'Alice', family_name: 'Doe' },
    mallory: { email: 'mallory@elsewhere.test', preferred_username: 'mallory' },
    local: { email: 'local@example.com', preferred_username: 'oidc-local' },
    impostor: { email: 'impostor@example.com', preferred_username: 'alice.oidc' },
  };
  let t: TestApp;
  let op: TestOidcProvider;
  let plain: User;
  let orgAdmin: User;

  const settings = () => ({
    SOCIAL_AUTH_OIDC_KEY: op.clientId,
    SOCIAL_AUTH_OIDC_SECRET: op.clientSecret,
    SOCIAL_AUTH_OIDC_OIDC_ENDPOINT: op.issuer,
  });

  /** Starts a sign-in as a browser: the provider URL and the state cookie. */
  const start = async (query = '') => {
    const { location, cookie } = await startSso(t, 'oidc', query);
    return { location: location.toString(), cookie };
  };
  const signIn = async (account: string, query = '') => {
    const { location, cookie } = await start(query);
    const answer = await op.signIn(location, account, `${BASE}/sso/complete/oidc/`);
    return { answer, cookie, res: await returnFromProvider(t, answer, cookie) };
  };

  before(async () => {
    t = await createTestApp();
    op = await startOidcProvider(`${BASE}/sso/complete/oidc/`, accounts);
    assert.equal((await t.patch('/api/v2/settings/system/', { SVC_URL_BASE: BASE })).status, 200);
    const res = await t.patch('/api/v2/settings/oidc/', {
      ...settings(),
      SOCIAL_AUTH_OIDC_ORGANIZATION_MAP: { 'OIDC Org': { users: '/.*@example\\.com$/', admins: ['alice@example.com'] } },
      SOCIAL_AUTH_OIDC_TEAM_MAP: { 'OIDC Team': { organization: 'OIDC Org', users: ['alice.oidc'] } },
    });
    assert.equal(res.status, 200, res.text);
    await t.patch('/api/v2/settings/authentication/', { SOCIAL_AUTH_TIMEOUT: 1 });
    const org = (await newOrg(t)).id;
    plain = await newUser(t);
    orgAdmin = await newUser(t, { admin: org });
    await t.createUser('oidc-local');
  });
  after(async () => {
    await op.close();
    await t.close();
  });

  it('keeps the client secret hidden and the settings to superusers', async () => {
    const read = await t.get('/api/v2/settings/oidc/');
    assert.equal(read.body.SOCIAL_AUTH_OIDC_SECRET, '$encrypted$');
    assert.equal(read.body.SOCIAL_AUTH_OIDC_VERIFY_SSL, true);
    assert.deepEqual(read.body.SOCIAL_AUTH_OIDC_CLAIM_MAP.username, 'preferred_username');
    for (const who of [plain, orgAdmin]) {
      assert.equal((await t.get('/api/v2/settings/oidc/', { as: who })).status, 403);
      assert.equal((await t.patch('/api/v2/settings/oidc/', { SOCIAL_AUTH_OIDC_OIDC_ENDPOINT: 'http://127.0.0.1:1' }, { as: who })).status, 403);
    }
    assert.equal((await t.get('/api/v2/settings/oidc/')).body.SOCIAL_AUTH_OIDC_OIDC_ENDPOINT, op.issuer);
  });

  it('is listed by GET /api/v2/auth/ while configured', async () => {
    const res = await t.get('/api/v2/auth/', { as: null });
    assert.deepEqual({ login_url: res.body.oidc.login_url, complete_url: res.body.oidc.complete_url }, { login_url: '/sso/login/oidc/', complete_url: `${BASE}/sso/complete/oidc/` });
    await t.patch('/api/v2/settings/oidc/', { SOCIAL_AUTH_OIDC_OIDC_ENDPOINT: '' });
    try {
      assert.ok(!('oidc' in (await t.get('/api/v2/auth/', { as: null })).body));
    } finally {
      await t.patch('/api/v2/settings/oidc/', settings());
    }
  });

  it('refuses invalid settings naming the field', async () => {
    for (const body of [
      { SOCIAL_AUTH_OIDC_OIDC_ENDPOINT: 'ftp://x' },
      { SOCIAL_AUTH_OIDC_CLAIM_MAP: { username: 'a b' } },
      { SOCIAL_AUTH_OIDC_CLAIM_MAP: { is_superuser: 'admin' } },
      { SOCIAL_AUTH_OIDC_ORGANIZATION_MAP: { Org: { users: 5 } } },
      { SOCIAL_AUTH_OIDC_TEAM_MAP: { Team: { users: true } } },
    ]) {
      const res = await t.patch('/api/v2/settings/oidc/', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.ok(Object.keys(body)[0] in res.body, res.text);
    }
  });

  it('signs in through the provider: an external user with its claims and mapped memberships, never a superuser', async () => {
    const { res } = await signIn('alice', '?next=/api/v2/me/');
    assert.equal(res.status, 302, res.text);
    assert.equal(res.headers.location, '/api/v2/me/');
    const session = setCookies(res).get('svc_sessionid')?.value;
    assert.ok(session);
    const me = await t.get('/api/v2/me/', { as: null, headers: { cookie: `svc_sessionid=${session}` } });
    assert.equal(me.status, 200);
    const user = me.body.results[0];
    assert.equal(user.username, 'alice.oidc');
    assert.equal(user.email, 'alice@example.com');
    assert.equal(user.first_name, 'Alice');
    assert.equal(user.is_superuser, false);
    assert.equal((await t.db.query<AnyRow>(`SELECT external_account FROM users WHERE id = $1`, [user.id]))[0].external_account, 'oidc');
    const orgs = await t.get(`/api/v2/users/${user.id}/organizations/`);
    assert.deepEqual(orgs.body.results.map((o: { name: string }) => o.name), ['OIDC Org']);
    const adminOf = await t.get(`/api/v2/users/${user.id}/admin_of_organizations/`);
    assert.deepEqual(adminOf.body.results.map((o: { name: string }) => o.name), ['OIDC Org']);
    const teams = await t.get(`/api/v2/users/${user.id}/teams/`);
    assert.deepEqual(teams.body.results.map((o: { name: string }) => o.name), ['OIDC Team']);
    const [event] = await t.db.query<AnyRow>(`SELECT detail FROM audit_events WHERE event_type = 'auth.external_login' AND target_id = $1`, [user.id]);
    assert.equal(event.detail.backend, 'oidc');
    assert.equal(event.detail.uid, 'alice');
    assert.ok(!JSON.stringify(await t.db.query<AnyRow>('SELECT detail FROM audit_events')).includes(op.clientSecret));
  });

  it('maps only what the maps say: a user of another domain joins nothing', async () => {
    const { res } = await signIn('mallory', '?next=//evil.example/');
    assert.equal(res.status, 302);
    assert.equal(res.headers.location, '/', 'an unsafe next is ignored');
    const [row] = await t.db.query<AnyRow>(`SELECT id, is_superuser FROM users WHERE username = 'mallory'`);
    assert.equal(row.is_superuser, false);
    assert.equal((await t.get(`/api/v2/users/${row.id}/organizations/`)).body.count, 0);
  });

  it('refuses a replayed answer', async () => {
    const { answer, cookie, res } = await signIn('alice');
    assert.equal(res.status, 302);
    assert.ok(setCookies(res).get('svc_sessionid')?.value);
    assert.match(ssoFailure(await returnFromProvider(t, answer, cookie)), /could not be verified/);
    assert.equal((await lastLoginFailure(t)).reason, 'unknown_state');
  });

  it('refuses an answer whose state is not the browser\'s', async () => {
    const first = await start();
    const answer = await op.signIn(first.location, 'alice', `${BASE}/sso/complete/oidc/`);
    const other = await start();
    assert.match(ssoFailure(await returnFromProvider(t, answer, other.cookie)), /could not be verified/);
    assert.equal((await lastLoginFailure(t)).reason, 'state_mismatch');
    ssoFailure(await returnFromProvider(t, answer, null));
    assert.equal((await lastLoginFailure(t)).reason, 'state_mismatch');
  });

  it('refuses an error answer from the provider', async () => {
    const { location, cookie } = await start();
    const state = new URL(location).searchParams.get('state');
    const res = await returnFromProvider(t, new URL(`${BASE}/sso/complete/oidc/?error=access_denied&state=${state}`), cookie);
    assert.match(ssoFailure(res), /did not sign you in/);
    assert.equal((await lastLoginFailure(t)).reason, 'provider_error:access_denied');
  });

  /** Signs in with the provider's ID token changed by `tamper` (and signed with an unpublished key when `forge`): refused as unverifiable. */
  const assertRefusedWhenTampered = async (tamper: (claims: Record<string, unknown>) => Record<string, unknown>, forge = false) => {
    op.tamper = tamper;
    op.forgeSignature = forge;
    try {
      const { res } = await signIn('alice');
      assert.match(ssoFailure(res), /could not be verified/);
      assert.match((await lastLoginFailure(t)).reason, /^verification_failed/);
    } finally {
      op.tamper = null;
      op.forgeSignature = false;
    }
  };

  for (const [name, tamper] of [
    ['a nonce mismatch', (c: Record<string, unknown>) => ({ ...c, nonce: 'another-nonce' })],
    ['a wrong issuer', (c: Record<string, unknown>) => ({ ...c, iss: 'http://127.0.0.1:1' })],
    ['a wrong audience', (c: Record<string, unknown>) => ({ ...c, aud: 'another-client' })],
    ['an expired ID token', (c: Record<string, unknown>) => ({ ...c, iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 })],
  ] as const) {
    it(`refuses ${name} in the ID token`, () => assertRefusedWhenTampered(tamper));
  }

  it('refuses an ID token signed with a key the provider does not publish', () => assertRefusedWhenTampered((c) => ({ ...c, sub: 'admin' }), true));

  it('fails closed, with a message, when the provider is unreachable or silent', async () => {
    const silent = await startSilentServer();
    try {
      await t.patch('/api/v2/settings/oidc/', { SOCIAL_AUTH_OIDC_OIDC_ENDPOINT: `http://127.0.0.1:${await closedPort()}` });
      const down = await t.get('/sso/login/oidc/', { as: null });
      assert.match(ssoFailure(down), /could not be reached/);
      assert.equal((await lastLoginFailure(t)).reason, 'provider_unreachable');
      await t.patch('/api/v2/settings/oidc/', { SOCIAL_AUTH_OIDC_OIDC_ENDPOINT: silent.url });
      const started = Date.now();
      assert.match(ssoFailure(await t.get('/sso/login/oidc/', { as: null })), /could not be reached/);
      assert.ok(Date.now() - started < 5000);
    } finally {
      await silent.close();
      await t.patch('/api/v2/settings/oidc/', settings());
    }
  });

  it('does not sign in a local user of the same name', async () => {
    const { res } = await signIn('local');
    assert.match(ssoFailure(res), /username "oidc-local" already belongs to another account/);
    assert.equal((await t.db.query<AnyRow>(`SELECT external_account FROM users WHERE username = 'oidc-local'`))[0].external_account, null);
    assert.equal((await lastLoginFailure(t)).reason, 'identity_conflict');
  });

  it("another subject asserting alice's username does not get her account: refused and audited", async () => {
    const [alice] = await t.db.query<AnyRow>(`SELECT id, email FROM users WHERE username = 'alice.oidc'`);
    const { res } = await signIn('impostor');
    assert.match(ssoFailure(res), /username "alice.oidc" already belongs to another account/);
    const conflicts = (await t.get(`/api/v2/audit_events/?event_type=auth.identity_conflict&target_id=${alice.id}`)).body.results;
    assert.equal(conflicts.length, 1);
    assert.deepEqual(conflicts[0].detail, { backend: 'oidc', source: 'oidc', subject: 'impostor', username: 'alice.oidc', holder: 'external' });
    assert.equal((await t.db.query<AnyRow>('SELECT email FROM users WHERE id = $1', [alice.id]))[0].email, 'alice@example.com');
    assert.ok(!JSON.stringify(conflicts).includes(op.clientSecret));
  });

  it('the same subject reaches the same user after the provider renames him', async () => {
    const [alice] = await t.db.query<AnyRow>(`SELECT id FROM users WHERE username = 'alice.oidc'`);
    accounts.alice = { ...accounts.alice, preferred_username: 'alice.renamed', email: 'alice@renamed.example.com' };
    try {
      const { res } = await signIn('alice');
      assert.equal(res.status, 302, res.text);
      const session = setCookies(res).get('svc_sessionid')?.value;
      const me = (await t.get('/api/v2/me/', { as: null, headers: { cookie: `svc_sessionid=${session}` } })).body.results[0];
      assert.deepEqual([me.id, me.username, me.email], [alice.id, 'alice.oidc', 'alice@renamed.example.com']);
      assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM users WHERE username = 'alice.renamed'`)).length, 0);
    } finally {
      accounts.alice = { ...accounts.alice, preferred_username: 'alice.oidc', email: 'alice@example.com' };
    }
  });

  it('answers the login page when OIDC is not configured', async () => {
    await t.patch('/api/v2/settings/oidc/', { SOCIAL_AUTH_OIDC_KEY: '' });
    try {
      assert.match(ssoFailure(await t.get('/sso/login/oidc/', { as: null })), /not configured/);
    } finally {
      await t.patch('/api/v2/settings/oidc/', settings());
    }
  });
});
