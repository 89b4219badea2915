import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, setCookies, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { lastLoginFailure, returnFromProvider, ssoFailure, startSso } from './helpers/sso-browser.ts';
import { startOAuthStandIn, type OAuthStandIn } from './helpers/oauth-provider.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const BASE = 'http://drover.test';
const PROVIDERS = [
  { slug: 'github', prefix: 'GITHUB', key: 'gh-client', secret: 'gh-secret-value' },
  { slug: 'google-oauth2', prefix: 'GOOGLE_OAUTH2', key: 'google-client', secret: 'google-secret-value' },
  { slug: 'azuread-oauth2', prefix: 'AZUREAD_OAUTH2', key: 'azure-client', secret: 'azure-secret-value' },
] as const;

describe('social sign-in (GitHub, Google, Azure AD)', () => {
  let t: TestApp;
  let provider: OAuthStandIn;
  let plain: User;
  let orgAdmin: User;

  const start = (slug: string) => startSso(t, slug);
  /** The provider's redirect back to the service, as the browser would get it. */
  const authorize = async (location: URL) => {
    const res = await fetch(location, { redirect: 'manual' });
    assert.equal(res.status, 302);
    return new URL(res.headers.get('location')!);
  };
  const signIn = async (slug: string) => {
    const { location, cookie } = await start(slug);
    const answer = await authorize(location);
    return { answer, cookie, res: await returnFromProvider(t, answer, cookie) };
  };
  const orgsOf = async (username: string) => {
    const [row] = await t.db.query<AnyRow>('SELECT id FROM users WHERE username = $1', [username]);
    return (await t.get(`/api/v2/users/${row.id}/organizations/`)).body.results.map((o: { name: string }) => o.name);
  };

  before(async () => {
    provider = await startOAuthStandIn(Object.fromEntries(PROVIDERS.map((p) => [p.key, p.secret])));
    t = await createTestApp({ SVC_SOCIAL_AUTH_PROVIDER_URL: provider.url });
    assert.equal((await t.patch('/api/v2/settings/system/', { SVC_URL_BASE: BASE })).status, 200);
    for (const p of PROVIDERS) {
      const res = await t.patch(`/api/v2/settings/${p.slug}/`, { [`SOCIAL_AUTH_${p.prefix}_KEY`]: p.key, [`SOCIAL_AUTH_${p.prefix}_SECRET`]: p.secret });
      assert.equal(res.status, 200, res.text);
    }
    await t.patch('/api/v2/settings/authentication/', {
      SOCIAL_AUTH_TIMEOUT: 1,
      SOCIAL_AUTH_ORGANIZATION_MAP: { Social: { users: true }, Staff: { users: '/.*@corp\\.example$/', remove_users: true } },
      SOCIAL_AUTH_TEAM_MAP: { Friends: { organization: 'Social', users: ['/.*-friend/'] } },
    });
    await t.patch('/api/v2/settings/github/', { SOCIAL_AUTH_GITHUB_ORGANIZATION_MAP: { 'GitHub Org': { users: true, admins: false } } });
    const org = (await newOrg(t)).id;
    plain = await newUser(t);
    orgAdmin = await newUser(t, { admin: org });
  });
  after(async () => {
    await t.close();
    await provider.close();
  });

  it('keeps the client secrets hidden and the settings to superusers', async () => {
    for (const p of PROVIDERS) {
      const read = await t.get(`/api/v2/settings/${p.slug}/`);
      assert.equal(read.status, 200);
      assert.equal(read.body[`SOCIAL_AUTH_${p.prefix}_SECRET`], '$encrypted$');
      assert.equal(read.body[`SOCIAL_AUTH_${p.prefix}_KEY`], p.key);
      for (const who of [plain, orgAdmin]) {
        assert.equal((await t.get(`/api/v2/settings/${p.slug}/`, { as: who })).status, 403);
        assert.equal((await t.patch(`/api/v2/settings/${p.slug}/`, { [`SOCIAL_AUTH_${p.prefix}_KEY`]: 'x' }, { as: who })).status, 403);
      }
    }
    for (const who of [plain, orgAdmin]) {
      assert.equal((await t.patch('/api/v2/settings/authentication/', { SOCIAL_AUTH_ORGANIZATION_MAP: { Mine: { admins: true } } }, { as: who })).status, 403);
    }
    const bad = await t.patch('/api/v2/settings/google-oauth2/', { SOCIAL_AUTH_GOOGLE_OAUTH2_WHITELISTED_DOMAINS: ['not a domain'] });
    assert.equal(bad.status, 400);
    assert.ok('SOCIAL_AUTH_GOOGLE_OAUTH2_WHITELISTED_DOMAINS' in bad.body);
    const fields = await t.patch('/api/v2/settings/authentication/', { SOCIAL_AUTH_USER_FIELDS: ['is_superuser'] });
    assert.equal(fields.status, 400);
  });

  it('lists the configured providers in GET /api/v2/auth/, for anyone', async () => {
    const res = await t.get('/api/v2/auth/', { as: null });
    assert.equal(res.status, 200);
    for (const p of PROVIDERS) {
      assert.equal(res.body[p.slug].login_url, `/sso/login/${p.slug}/`);
      assert.equal(res.body[p.slug].complete_url, `${BASE}/sso/complete/${p.slug}/`);
    }
    assert.ok(!('oidc' in res.body), 'OIDC is not configured here');
    assert.ok(!JSON.stringify(res.body).includes('secret-value'));
  });

  for (const [i, p] of PROVIDERS.entries()) {
    it(`signs in with ${p.slug}: an external user with mapped memberships`, async () => {
      const login = `${p.slug.split('-')[0]}-friend${i}`;
      provider.user = { id: String(100 + i), login, email: `${login}@corp.example`, name: 'Fran Friend', privateEmail: p.slug === 'github' };
      const { res } = await signIn(p.slug);
      assert.equal(res.status, 302, res.text);
      assert.equal(res.headers.location, '/');
      assert.ok(setCookies(res).get('svc_sessionid')?.value);
      const username = p.slug === 'github' ? login : p.slug === 'google-oauth2' ? login : `${login}@corp.example`;
      const [row] = await t.db.query<AnyRow>('SELECT id, email, first_name, last_name, external_account, is_superuser FROM users WHERE username = $1', [username]);
      assert.ok(row, `user ${username}`);
      assert.equal(row.external_account, p.slug);
      assert.equal(row.email, `${login}@corp.example`);
      assert.equal(row.first_name, 'Fran');
      assert.equal(row.is_superuser, false);
      const orgs = await orgsOf(username);
      // GitHub's own map is used instead of the global one.
      assert.deepEqual(orgs.sort(), p.slug === 'github' ? ['GitHub Org'] : ['Social', 'Staff']);
      if (p.slug !== 'github') {
        const teams = (await t.get(`/api/v2/users/${row.id}/teams/`)).body.results.map((o: { name: string }) => o.name);
        assert.deepEqual(teams, ['Friends']);
      }
      assert.equal(provider.tokenRequests.at(-1)!.clientSecret, p.secret);
      const [event] = await t.db.query<AnyRow>(`SELECT detail FROM audit_events WHERE event_type = 'auth.external_login' AND target_id = $1`, [row.id]);
      assert.equal(event.detail.backend, p.slug);
      assert.ok(!JSON.stringify(await t.db.query<AnyRow>('SELECT detail FROM audit_events')).includes(p.secret));
    });
  }

  it('removes a membership the map no longer gives, on the next sign-in', async () => {
    provider.user = { id: '300', login: 'mover', email: 'mover@corp.example' };
    assert.equal((await signIn('google-oauth2')).res.status, 302);
    assert.deepEqual((await orgsOf('mover')).sort(), ['Social', 'Staff']);
    provider.user = { id: '300', login: 'mover', email: 'mover@elsewhere.example' };
    // The username comes from the email's local part: still "mover".
    assert.equal((await signIn('google-oauth2')).res.status, 302);
    assert.deepEqual(await orgsOf('mover'), ['Social']);
  });

  it("a GitHub account with a Google user's username does not get that account: refused and audited", async () => {
    const [mover] = await t.db.query<AnyRow>(`SELECT id, email FROM users WHERE username = 'mover'`);
    provider.user = { id: '300', login: 'mover', email: 'mover@corp.example' };
    assert.match(ssoFailure((await signIn('github')).res), /username "mover" already belongs to another account/);
    assert.equal((await lastLoginFailure(t)).reason, 'identity_conflict');
    const conflicts = (await t.get(`/api/v2/audit_events/?event_type=auth.identity_conflict&target_id=${mover.id}`)).body.results;
    assert.equal(conflicts.length, 1);
    // The same numeric id as the Google account: ids of different providers are different identities.
    assert.deepEqual(conflicts[0].detail, { backend: 'github', source: 'github', subject: '300', username: 'mover', holder: 'external' });
    assert.ok(!JSON.stringify(conflicts).includes(PROVIDERS[0].secret));
    const [after] = await t.db.query<AnyRow>(`SELECT external_account, email FROM users WHERE id = $1`, [mover.id]);
    assert.deepEqual([after.external_account, after.email], ['google-oauth2', mover.email]);
  });

  it('the same provider id reaches the same user after the login changes at the provider', async () => {
    provider.user = { id: '310', login: 'octo', email: 'octo@example.org' };
    assert.equal((await signIn('github')).res.status, 302);
    const [octo] = await t.db.query<AnyRow>(`SELECT id FROM users WHERE username = 'octo'`);
    provider.user = { id: '310', login: 'octo-renamed', email: 'octo@example.org' };
    const { res } = await signIn('github');
    assert.equal(res.status, 302);
    const me = (await t.get('/api/v2/me/', { as: null, headers: { cookie: `svc_sessionid=${setCookies(res).get('svc_sessionid')?.value}` } })).body.results[0];
    assert.deepEqual([me.id, me.username], [octo.id, 'octo']);
    assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM users WHERE username = 'octo-renamed'`)).length, 0);
  });

  it('does not sign in a local user of the same name', async () => {
    provider.user = { id: '320', login: plain.username, email: 'plain@example.org' };
    assert.match(ssoFailure((await signIn('github')).res), /already belongs to another account/);
    const [row] = await t.db.query<AnyRow>('SELECT external_account FROM users WHERE id = $1', [plain.id]);
    assert.equal(row.external_account, null);
  });

  it('refuses a replayed answer, and a code used twice', async () => {
    provider.user = { id: '400', login: 'replayer', email: 'replayer@example.org' };
    const { answer, cookie, res } = await signIn('github');
    assert.equal(res.status, 302);
    assert.match(ssoFailure(await returnFromProvider(t, answer, cookie)), /could not be verified/);
    assert.equal((await lastLoginFailure(t)).reason, 'unknown_state');
    // The same code with a fresh state: the provider refuses it.
    const fresh = await start('github');
    const replay = new URL(answer);
    replay.searchParams.set('state', fresh.location.searchParams.get('state')!);
    assert.match(ssoFailure(await returnFromProvider(t, replay, fresh.cookie)), /refused the authorization code/);
    assert.equal((await lastLoginFailure(t)).reason, 'provider_answer_refused');
  });

  it('refuses an answer whose state is not the browser\'s, and an error from the provider', async () => {
    const first = await start('google-oauth2');
    const answer = await authorize(first.location);
    const other = await start('google-oauth2');
    ssoFailure(await returnFromProvider(t, answer, other.cookie));
    assert.equal((await lastLoginFailure(t)).reason, 'state_mismatch');
    const denied = await start('azuread-oauth2');
    const url = new URL(`${BASE}/sso/complete/azuread-oauth2/?error=access_denied&error_description=User+said+no&state=${denied.location.searchParams.get('state')}`);
    assert.match(ssoFailure(await returnFromProvider(t, url, denied.cookie)), /did not sign you in/);
    assert.equal((await lastLoginFailure(t)).reason, 'provider_error:access_denied');
  });

  it('refuses an Azure AD ID token meant for another application or expired', async () => {
    provider.user = { id: '500', login: 'az', email: 'az@example.org' };
    for (const tamper of [(c: Record<string, unknown>) => ({ ...c, aud: 'another-app' }), (c: Record<string, unknown>) => ({ ...c, exp: 1000 })]) {
      provider.azureClaims = tamper;
      try {
        ssoFailure((await signIn('azuread-oauth2')).res);
        assert.equal((await lastLoginFailure(t)).reason, 'provider_answer_refused');
      } finally {
        provider.azureClaims = null;
      }
    }
    assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM users WHERE username = 'az@example.org'`)).length, 0);
  });

  it('refuses Google accounts outside SOCIAL_AUTH_GOOGLE_OAUTH2_WHITELISTED_DOMAINS', async () => {
    await t.patch('/api/v2/settings/google-oauth2/', { SOCIAL_AUTH_GOOGLE_OAUTH2_WHITELISTED_DOMAINS: ['corp.example'] });
    try {
      provider.user = { id: '600', login: 'outsider', email: 'outsider@gmail.example' };
      assert.match(ssoFailure((await signIn('google-oauth2')).res), /domain is not allowed/);
      provider.user = { id: '601', login: 'insider', email: 'insider@corp.example' };
      assert.equal((await signIn('google-oauth2')).res.status, 302);
      assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM users WHERE username = 'outsider'`)).length, 0);
    } finally {
      await t.patch('/api/v2/settings/google-oauth2/', { SOCIAL_AUTH_GOOGLE_OAUTH2_WHITELISTED_DOMAINS: [] });
    }
  });

  it('creates no account when SOCIAL_AUTH_USER_FIELDS is an empty list, but lets known users in', async () => {
    await t.patch('/api/v2/settings/authentication/', { SOCIAL_AUTH_USER_FIELDS: [] });
    try {
      provider.user = { id: '700', login: 'newcomer', email: 'newcomer@example.org' };
      assert.match(ssoFailure((await signIn('github')).res), /new accounts are not created/);
      assert.equal((await lastLoginFailure(t)).reason, 'account_creation_disabled');
      provider.user = { id: '400', login: 'replayer', email: 'replayer@example.org' };
      assert.equal((await signIn('github')).res.status, 302);
    } finally {
      await t.patch('/api/v2/settings/authentication/', { SOCIAL_AUTH_USER_FIELDS: null });
    }
  });

  it('fails closed within SOCIAL_AUTH_TIMEOUT when the provider does not answer', async () => {
    provider.silent = true;
    try {
      const started = Date.now();
      assert.match(ssoFailure((await signIn('github')).res), /could not be reached/);
      assert.ok(Date.now() - started < 5000);
      assert.equal((await lastLoginFailure(t)).reason, 'provider_unreachable');
    } finally {
      provider.silent = false;
    }
  });

  it('answers the login page when a provider is not configured', async () => {
    await t.patch('/api/v2/settings/github/', { SOCIAL_AUTH_GITHUB_SECRET: '' });
    try {
      assert.match(ssoFailure(await t.get('/sso/login/github/', { as: null })), /not configured/);
    } finally {
      await t.patch('/api/v2/settings/github/', { SOCIAL_AUTH_GITHUB_SECRET: PROVIDERS[0].secret });
    }
  });
});
