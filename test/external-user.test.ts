import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../src/api/context.ts';
import { PUBLIC } from '../src/api/permissions.ts';
import { routeMethods } from '../src/api/resource-routes.ts';
import { signInExternalUser, type ExternalIdentity } from '../src/auth/external/external-user.ts';
import { membershipsFromMaps, userMatcher, groupMatcher, decide } from '../src/auth/external/mapping.ts';
import { completeSsoLogin, failSsoLogin } from '../src/auth/external/sso-session.ts';
import { addSsoMethod } from '../src/auth/external/sso-methods.ts';
import { createTestApp, newUser, setCookies, type TestApp } from './helpers/app.ts';

const client = { remoteAddr: '127.0.0.1', userAgent: 'test' };

/** A stand-in SSO callback: the protocol part is the test's, the rest is the shared core. */
const fakeSsoRoutes = (app: FastifyInstance, services: Services) => {
  routeMethods(app, '/sso/complete/fake/', PUBLIC, {
    GET: async (request, reply) => {
      const q = request.query as Record<string, string>;
      if (q.fail) return failSsoLogin(reply, 'The identity provider refused the sign-in.');
      return completeSsoLogin(services, request, reply, { backend: 'fake', uid: q.uid, username: q.username, email: q.email }, q.next);
    },
  });
};

describe('external users (the shared sign-in core)', () => {
  let t: TestApp;
  const signIn = (identity: ExternalIdentity) => signInExternalUser(t.services, identity, client);
  const userNamed = async (username: string) => (await t.get(`/api/v2/users/?username=${username}`)).body.results[0];
  const audits = async (type: string, username: string) =>
    (await t.get(`/api/v2/audit_events/?event_type=${type}&order_by=id&page_size=200`)).body.results.filter(
      (e: any) => e.actor_username === username || e.target_name === username,
    );

  before(async () => {
    t = await createTestApp({}, { extraRoutes: [fakeSsoRoutes] });
  });
  after(() => t.close());

  it('creates the user on first sign-in, marked external, with no usable password', async () => {
    const user = await signIn({ backend: 'saml', uid: 'idp1:ann', username: 'ann', email: 'ann@example.com', first_name: 'Ann', last_name: 'Lee' });
    const row = await userNamed('ann');
    assert.equal(row.id, user.id);
    assert.equal(row.external_account, 'saml');
    assert.equal(row.email, 'ann@example.com');
    assert.equal(row.first_name, 'Ann');
    assert.equal(row.is_superuser, false);
    const [stored] = await t.db.query('SELECT password FROM users WHERE id = $1', [user.id]);
    assert.equal(stored.password, '');
    const login = await t.post('/api/login/', { username: 'ann', password: '' }, { as: null });
    assert.equal(login.status, 400);
    const events = await audits('auth.external_login', 'ann');
    assert.equal(events.length, 1);
    assert.deepEqual(events[0].detail, { backend: 'saml', uid: 'idp1:ann', created: true });
  });

  it('updates the profile on later sign-ins; an invalid email from the source is dropped', async () => {
    await signIn({ backend: 'saml', uid: 'idp1:ann', username: 'ann', email: 'not an email', first_name: 'Annie' });
    const row = await userNamed('ann');
    assert.equal(row.first_name, 'Annie');
    assert.equal(row.email, '');
  });

  it('LDAP users keep their DN in ldap_dn', async () => {
    await signIn({ backend: 'ldap', uid: 'uid=lee,ou=people,dc=example,dc=org', username: 'lee' });
    const row = await userNamed('lee');
    assert.equal(row.ldap_dn, 'uid=lee,ou=people,dc=example,dc=org');
    assert.equal(row.external_account, null);
  });

  it('refuses a username that belongs to a local user or to another source, and audits it', async () => {
    await newUser(t, { username: 'localbob' });
    await assert.rejects(signIn({ backend: 'oidc', uid: 'sub-1', username: 'localbob' }), (err: any) => err.statusCode === 403 || err.status === 403 || /local user/.test(err.message));
    await assert.rejects(signIn({ backend: 'oidc', uid: 'sub-2', username: 'ann' }), /signs in through saml/);
    const failures = await audits('auth.login', 'localbob');
    assert.ok(failures.some((e: any) => e.outcome === 'failure' && e.detail.reason === 'local_user_exists' && e.detail.backend === 'oidc'));
    assert.equal((await userNamed('localbob')).external_account, null);
  });

  it('refuses a disabled user and an invalid username', async () => {
    await t.db.query("UPDATE users SET is_active = false WHERE username = 'lee'");
    await assert.rejects(signIn({ backend: 'ldap', uid: 'uid=lee,ou=people,dc=example,dc=org', username: 'lee' }), /disabled/);
    await assert.rejects(signIn({ backend: 'saml', uid: 'x', username: 'has space' }), /not a valid username/);
    assert.equal((await t.get('/api/v2/users/?username=has%20space')).body.count, 0);
  });

  it('an external user cannot be given a local password (400) nor create a token unless allowed', async () => {
    const ann = await userNamed('ann');
    const res = await t.patch(`/api/v2/users/${ann.id}/`, { password: 'sneaky-Password-1' });
    assert.equal(res.status, 400);
    assert.match(res.body.password[0], /external authentication source \(saml\)/);
    const [stored] = await t.db.query('SELECT password FROM users WHERE id = $1', [ann.id]);
    assert.equal(stored.password, '');
    const other = await t.patch(`/api/v2/users/${ann.id}/`, { first_name: 'Ann B' });
    assert.equal(other.status, 200);
  });

  it('sets flags only when the identity says so, and audits the change', async () => {
    await signIn({ backend: 'saml', uid: 'idp1:ann', username: 'ann', flags: { is_system_auditor: true } });
    let row = await userNamed('ann');
    assert.equal(row.is_system_auditor, true);
    assert.equal(row.is_superuser, false);
    await signIn({ backend: 'saml', uid: 'idp1:ann', username: 'ann' });
    assert.equal((await userNamed('ann')).is_system_auditor, true);
    await signIn({ backend: 'saml', uid: 'idp1:ann', username: 'ann', flags: { is_system_auditor: false } });
    row = await userNamed('ann');
    assert.equal(row.is_system_auditor, false);
    const changes = (await audits('auth.mapping_changed', 'ann')).filter((e: any) => e.detail.flag === 'is_system_auditor');
    assert.deepEqual(changes.map((e: any) => e.detail.value), [true, false]);
  });

  describe('maps', () => {
    const orgMap = {
      Engineering: { users: true, admins: ['boss', '/^chief.*/i'], remove_admins: true },
      Sales: { users: 'nobody-matches', remove_users: false },
      Support: { users: ['/.*@support\\.example$/'] },
    };
    const teamMap = { Ops: { organization: 'Engineering', users: ['/^op/'], remove: true } };

    it('decide follows AWX: true adds, a miss removes only when remove allows, null leaves alone', () => {
      const never = () => false;
      assert.equal(decide(true, never, true), true);
      assert.equal(decide(null, never, true), undefined);
      assert.equal(decide(undefined, never, true), undefined);
      assert.equal(decide(false, never, true), false);
      assert.equal(decide(false, never, false), undefined);
      assert.equal(decide('x', never, true), false);
      assert.equal(decide(['x', 'y'], (i) => i === 'y', false), true);
    });

    it('creates the named organizations and teams and grants what the maps say', async () => {
      const matches = userMatcher({ username: 'operator1', email: 'op@support.example' });
      await signIn({ backend: 'saml', uid: 'idp1:operator1', username: 'operator1', memberships: membershipsFromMaps(orgMap, teamMap, matches) });
      const user = await userNamed('operator1');
      const orgs = (await t.get(`/api/v2/users/${user.id}/organizations/`)).body.results.map((o: any) => o.name).sort();
      assert.deepEqual(orgs, ['Engineering', 'Support']);
      assert.equal((await t.get(`/api/v2/users/${user.id}/admin_of_organizations/`)).body.count, 0);
      const teams = (await t.get(`/api/v2/users/${user.id}/teams/`)).body.results.map((x: any) => x.name);
      assert.deepEqual(teams, ['Ops']);
      assert.equal((await t.get('/api/v2/organizations/?name=Sales')).body.count, 1, 'organizations named in the map exist');
      const changes = await audits('auth.mapping_changed', 'operator1');
      assert.ok(changes.some((e: any) => e.detail.organization === 'Engineering' && e.detail.role === 'member_role' && e.detail.granted === true));
      assert.ok(changes.some((e: any) => e.detail.team === 'Ops' && e.detail.granted === true));
    });

    it('admins by regex; remove takes away what no longer matches, remove_users false keeps it', async () => {
      const chief = { backend: 'saml', uid: 'idp1:chiefly', username: 'chiefly' };
      await signIn({ ...chief, memberships: membershipsFromMaps(orgMap, teamMap, userMatcher({ username: 'chiefly' })) });
      let user = await userNamed('chiefly');
      assert.equal((await t.get(`/api/v2/users/${user.id}/admin_of_organizations/`)).body.results[0].name, 'Engineering');
      // Granted by hand in Sales, which the map names with remove_users false: stays.
      const sales = (await t.get('/api/v2/organizations/?name=Sales')).body.results[0];
      assert.equal((await t.post(`/api/v2/organizations/${sales.id}/users/`, { id: user.id })).status, 204);
      const demoted = { Engineering: { users: true, admins: [], remove_admins: true }, Sales: orgMap.Sales };
      await signIn({ ...chief, memberships: membershipsFromMaps(demoted, {}, userMatcher({ username: 'chiefly' })) });
      user = await userNamed('chiefly');
      assert.equal((await t.get(`/api/v2/users/${user.id}/admin_of_organizations/`)).body.count, 0);
      const orgs = (await t.get(`/api/v2/users/${user.id}/organizations/`)).body.results.map((o: any) => o.name).sort();
      assert.deepEqual(orgs, ['Engineering', 'Sales']);
    });

    it('LDAP maps match group DNs whatever their case and spacing', () => {
      const matches = groupMatcher(['cn=Admins, ou=Groups,dc=example,dc=org']);
      assert.equal(matches('CN=admins,OU=groups, DC=example, DC=org'), true);
      assert.equal(matches('cn=users,ou=groups,dc=example,dc=org'), false);
    });

    it('a map cannot make anyone superuser: only flags do', async () => {
      const everyone = { Engineering: { users: true, admins: true } };
      await signIn({ backend: 'saml', uid: 'idp1:plain', username: 'plain', memberships: membershipsFromMaps(everyone, {}, userMatcher({ username: 'plain' })) });
      const row = await userNamed('plain');
      assert.equal(row.is_superuser, false);
      assert.equal(row.is_system_auditor, false);
    });
  });

  describe('finishing a browser sign-in', () => {
    it('starts a session and redirects to a safe next, never another site', async () => {
      const res = await t.get('/sso/complete/fake/?uid=f1&username=fiona&email=f@example.com&next=/jobs', { as: null });
      assert.equal(res.status, 302);
      assert.equal(res.headers.location, '/jobs');
      const cookies = setCookies(res);
      const session = cookies.get('svc_sessionid')?.value;
      assert.ok(session);
      assert.ok(cookies.get('csrftoken')?.value);
      const me = await t.get('/api/v2/me/', { as: null, headers: { cookie: `svc_sessionid=${session}` } });
      assert.equal(me.body.results[0].username, 'fiona');
      const evil = await t.get('/sso/complete/fake/?uid=f1&username=fiona&next=//evil.example/', { as: null });
      assert.equal(evil.headers.location, '/');
      const logins = await audits('auth.login', 'fiona');
      assert.ok(logins.some((e: any) => e.outcome === 'success' && e.detail.backend === 'fake'));
    });

    it('a refused sign-in goes back to the login page with the message, and no session', async () => {
      await newUser(t, { username: 'localfred' });
      const res = await t.get('/sso/complete/fake/?uid=f2&username=localfred', { as: null });
      assert.equal(res.status, 302);
      const location = new URL(res.headers.location as string, 'http://x');
      assert.equal(location.pathname, '/login');
      assert.match(location.searchParams.get('sso_error')!, /local user named "localfred"/);
      assert.equal(setCookies(res).get('svc_sessionid'), undefined);
      const failed = await t.get('/sso/complete/fake/?fail=1', { as: null });
      assert.equal(new URL(failed.headers.location as string, 'http://x').searchParams.get('sso_error'), 'The identity provider refused the sign-in.');
    });
  });

  describe('GET /api/v2/auth/', () => {
    it('is public and empty while no browser method is configured', async () => {
      const res = await t.get('/api/v2/auth/', { as: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {});
    });

    it('lists what the methods enable, in AWX order, with absolute callbacks from SVC_URL_BASE', async () => {
      const removeStandIn = addSsoMethod({
        entries: (_services, base) => ({
          'saml:okta': { login_url: '/sso/login/saml/?idp=okta', complete_url: `${base}/sso/complete/saml/`, metadata_url: '/sso/metadata/saml/' },
          'google-oauth2': { login_url: '/sso/login/google-oauth2/', complete_url: `${base}/sso/complete/google-oauth2/` },
        }),
      });
      assert.equal((await t.patch('/api/v2/settings/system/', { SVC_URL_BASE: 'https://drover.example' })).status, 200);
      const res = await t.get('/api/v2/auth/', { as: null });
      assert.deepEqual(Object.keys(res.body), ['google-oauth2', 'saml:okta']);
      assert.equal(res.body['saml:okta'].complete_url, 'https://drover.example/sso/complete/saml/');
      assert.equal(res.body['saml:okta'].metadata_url, '/sso/metadata/saml/');
      removeStandIn();
    });
  });
});
