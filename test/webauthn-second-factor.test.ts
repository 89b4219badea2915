/**
 * The second factor (docs/webauthn.md): an organization's webauthn_required, who it binds, the
 * wall a session that has not passed it meets on every endpoint but the few that lead to it, the
 * first enrollment, and what becomes of Basic authentication, tokens and the password grant for
 * the users it binds.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, basicAuth, createTestApp, type SessionClient, type TestApp } from './helpers/app.ts';
import { grant, grantTeam, newOrg, newTeam, newUser, type User } from './helpers/factories.ts';
import { authenticate, authenticatorFor, browser, registerPasskey } from './helpers/webauthn.ts';
import { MainServiceCallers } from '../src/assistant/callers.ts';

const WALL = { detail: 'Second factor required.' };
/** The routes a session that has not passed its second factor reaches (besides public ones). */
const EXEMPT = ['/api/v2/me/', '/api/v2/config/', '/api/v2/webauthn/register/begin/', '/api/v2/webauthn/register/complete/'];

describe('webauthn second factor', () => {
  let t: TestApp;

  const setRequired = async (org: number, value: string) => {
    const res = await t.patch(`/api/v2/organizations/${org}/`, { webauthn_required: value });
    assert.equal(res.status, 200, res.text);
  };
  const count = async (table: string) => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;

  /** A user who must pass the second factor (member of an organization asking it of everyone), with a passkey, signed in with his password. */
  async function walledWithPasskey(org: number): Promise<{ user: User; session: SessionClient; authenticator: ReturnType<typeof authenticatorFor> }> {
    const user = await newUser(t, { member: org });
    const authenticator = authenticatorFor(t);
    // The passkey is registered by the user himself before his organization asks for it.
    await t.db.query(`UPDATE organizations SET webauthn_required = 'none' WHERE id = $1`, [org]);
    await registerPasskey(await t.login(user), authenticator);
    await t.db.query(`UPDATE organizations SET webauthn_required = 'all' WHERE id = $1`, [org]);
    return { user, session: await t.login(user), authenticator };
  }

  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  describe('the organization setting', () => {
    it('is none by default, one of none, admins and all', async () => {
      const org = await newOrg(t);
      assert.equal(org.webauthn_required, 'none');
      const options = await t.request('OPTIONS', `/api/v2/organizations/${org.id}/`);
      assert.deepEqual(options.body.actions.PUT.webauthn_required.choices.map((c: [string, string]) => c[0]), ['none', 'admins', 'all']);
      for (const value of ['some', '', null, 1, ['all']]) {
        const res = await t.patch(`/api/v2/organizations/${org.id}/`, { webauthn_required: value });
        assert.equal(res.status, 400, JSON.stringify(value));
        assert.ok(res.body.webauthn_required, res.text);
      }
      assert.equal((await t.get(`/api/v2/organizations/${org.id}/`)).body.webauthn_required, 'none');
      assert.equal((await t.get('/api/v2/organizations/?webauthn_required=none')).status, 200);
    });

    it('is set by superusers and the organization\'s admins, not by its members, auditors or another organization\'s admins', async () => {
      const org = await newOrg(t);
      const member = await newUser(t, { member: org.id });
      const auditor = await newUser(t, { auditor: org.id });
      const otherAdmin = await newUser(t, { admin: (await newOrg(t)).id });
      const systemAuditor = await newUser(t, { is_system_auditor: true });
      for (const who of [member, auditor, otherAdmin, systemAuditor]) {
        const res = await t.patch(`/api/v2/organizations/${org.id}/`, { webauthn_required: 'all' }, { as: who });
        assert.ok([403, 404].includes(res.status), `${who.username}: ${res.status}`);
      }
      assert.equal((await t.get(`/api/v2/organizations/${org.id}/`)).body.webauthn_required, 'none');
      const admin = await newUser(t, { admin: org.id });
      const byAdmin = await t.patch(`/api/v2/organizations/${org.id}/`, { webauthn_required: 'admins' }, { as: admin });
      assert.equal(byAdmin.status, 200, byAdmin.text);
      const [change] = await t.db.query<any>(
        `SELECT changes FROM activity_stream WHERE object1 = 'organization' AND object1_id = $1 AND operation = 'update' ORDER BY id DESC LIMIT 1`, [org.id],
      );
      assert.deepEqual(change.changes.webauthn_required, ['none', 'admins']);
      await setRequired(org.id, 'none');
    });
  });

  describe('who must pass it', () => {
    it('admins: the organization\'s admins; all: everyone holding a role in it, through a team too', async () => {
      const admins = await newOrg(t, { webauthn_required: 'admins' });
      const all = await newOrg(t, { webauthn_required: 'all' });
      const team = await newTeam(t, all.id);
      const cases: [string, User, boolean][] = [
        ['member where admins must', await newUser(t, { member: admins.id }), false],
        ['admin where admins must', await newUser(t, { admin: admins.id }), true],
        ['member where all must', await newUser(t, { member: all.id }), true],
        ['auditor where all must', await newUser(t, { auditor: all.id }), true],
        ['unrelated', await newUser(t), false],
        ['superuser holding no role', await newUser(t, { is_superuser: true }), false],
        ['system auditor holding no role', await newUser(t, { is_system_auditor: true }), false],
        ['superuser member where all must', await newUser(t, { is_superuser: true, member: all.id }), true],
      ];
      const viaTeam = await newUser(t);
      await t.post(`/api/v2/teams/${team.id}/users/`, { id: viaTeam.id });
      await grantTeam(t, team, `/api/v2/organizations/${all.id}/`, 'execute_role');
      cases.push(['executor through a team where all must', viaTeam, true]);
      const projectAdmin = await newUser(t);
      await grant(t, projectAdmin, `/api/v2/organizations/${all.id}/`, 'project_admin_role');
      cases.push(['project admin where all must', projectAdmin, true]);
      for (const [what, user, required] of cases) {
        const session = await t.login(user);
        assert.equal(session.loginResponse.body.second_factor_required, required, what);
        assert.equal(session.loginResponse.body.second_factor_pending, required, what);
        const me = await session.get('/api/v2/me/');
        assert.equal(me.status, 200, what);
        assert.equal(me.body.results[0].second_factor_pending, required, what);
        assert.equal((await session.get('/api/v2/organizations/')).status, required ? 401 : 200, what);
      }
      await setRequired(admins.id, 'none');
      await setRequired(all.id, 'none');
    });
  });

  describe('the wall', () => {
    let org: number;
    let user: User;
    let session: SessionClient;

    before(async () => {
      org = (await newOrg(t, { webauthn_required: 'all' })).id;
      user = await newUser(t, { member: org });
      session = await t.login(user);
    });

    it('the login answers the pending state, and /me/ shows it', async () => {
      assert.equal(session.loginResponse.status, 200);
      assert.equal(session.loginResponse.body.second_factor_pending, true);
      const me = await session.get('/api/v2/me/');
      assert.equal(me.status, 200);
      const [mine] = me.body.results;
      assert.equal(mine.id, user.id);
      assert.equal(mine.second_factor_required, true);
      assert.equal(mine.second_factor_pending, true);
      assert.equal(mine.webauthn_credentials, 0);
    });

    it('every other endpoint answers 401 "Second factor required." and changes nothing', async () => {
      const before = { organizations: await count('organizations'), tokens: await count('tokens'), inventories: await count('inventories'), sessions: await count('sessions') };
      const routes = t.app.routeTable.filter((r) => r.permission?.kind !== 'public' && r.method !== 'HEAD' && !EXEMPT.includes(r.url));
      assert.ok(routes.length > 500, `${routes.length} routes`);
      const failures: string[] = [];
      for (const route of routes) {
        const url = route.url.replace(/:\w+/g, route.url.includes('settings') ? 'system' : String(org));
        const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? { name: 'walled', organization: org, webauthn_required: 'none', label: 'x' } : undefined;
        const res = await session.request(route.method, url, { body });
        if (res.status !== 401 || JSON.stringify(res.body) !== JSON.stringify(WALL)) failures.push(`${route.method} ${route.url} → ${res.status} ${res.text.slice(0, 80)}`);
      }
      assert.deepEqual(failures, []);
      assert.deepEqual(
        { organizations: await count('organizations'), tokens: await count('tokens'), inventories: await count('inventories'), sessions: await count('sessions') },
        before,
      );
      assert.equal((await t.get(`/api/v2/organizations/${org}/`)).body.webauthn_required, 'all');
    });

    it('login, logout, me, config, ping and the public entry points answer as usual', async () => {
      for (const url of ['/api/v2/me/', '/api/v2/config/', '/api/v2/ping/', '/api/v2/', '/api/', '/api/v2/auth/', '/api/login/']) {
        assert.equal((await session.get(url)).status, 200, url);
      }
      assert.equal((await session.get('/api/v2/config/')).body.version, (await t.get('/api/v2/config/')).body.version);
      const other = await t.login(user);
      assert.equal((await other.post('/api/logout/', {})).status, 204);
      assert.equal((await other.get('/api/v2/me/')).status, 401);
      // A public endpoint treats the pending session as no session: the assistant passes the cookie on, and refuses it.
      assert.equal((await session.get('/api/v2/me/')).status, 200);
    });

    it('the assistant refuses a session that has not passed its second factor', async () => {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const main = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
      const cookie = `svc_sessionid=${session.cookies.get('svc_sessionid')}`;
      assert.deepEqual(await new MainServiceCallers(main).check({ cookie }), { refused: 401, detail: 'Second factor required.' });
      const passed = await t.login(await newUser(t));
      const answer = await new MainServiceCallers(main).check({ cookie: `svc_sessionid=${passed.cookies.get('svc_sessionid')}` });
      assert.ok('caller' in answer);
    });

    it('first enrollment: registers a passkey, still has to authenticate with it; then the session passes under a new key', async () => {
      assert.equal((await session.get('/api/v2/webauthn/credentials/')).status, 401);
      const authenticator = authenticatorFor(t);
      const credential = await registerPasskey(session, authenticator, 'First');
      assert.equal(credential.user, user.id);
      const me = (await session.get('/api/v2/me/')).body.results[0];
      assert.equal(me.webauthn_credentials, 1);
      assert.equal(me.second_factor_pending, true);
      assert.deepEqual((await session.get('/api/v2/organizations/')).body, WALL);
      // No second passkey by the password alone: the passkey now is the factor.
      assert.deepEqual((await session.post('/api/v2/webauthn/register/begin/', {})).body, WALL);
      // Renaming or deleting the passkey needs the factor passed too.
      assert.equal((await session.delete(`/api/v2/webauthn/credentials/${credential.id}/`)).status, 401);

      const oldKey = session.cookies.get('svc_sessionid')!;
      const oldCsrf = session.cookies.get('csrftoken')!;
      const res = await authenticate(session, authenticator);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.second_factor_pending, false);
      assert.equal(res.body.second_factor_required, true);
      assert.notEqual(session.cookies.get('svc_sessionid'), oldKey);
      assert.notEqual(session.cookies.get('csrftoken'), oldCsrf);
      assert.equal((await session.get('/api/v2/organizations/')).status, 200);
      assert.equal((await session.post('/api/v2/tokens/', { description: 'after the factor' })).status, 201);
      // The key from before the factor is of no use.
      const stale = await t.get('/api/v2/me/', { as: null, headers: { cookie: `svc_sessionid=${oldKey}` } });
      assert.equal(stale.status, 401);
      assert.match(stale.body.detail, /session has expired or ended/);
      // Now a second passkey may be added, and the first renamed.
      assert.equal((await session.post('/api/v2/webauthn/register/begin/', {})).status, 200);
      assert.equal((await session.patch(`/api/v2/webauthn/credentials/${credential.id}/`, { label: 'Renamed' })).status, 200);
    });

    it('a passwordless sign-in has passed it', async () => {
      const { user: walled, authenticator } = await walledWithPasskey(org);
      const b = browser(t);
      const res = await authenticate(b, authenticator, { username: walled.username });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.second_factor_pending, false);
      assert.equal((await b.get('/api/v2/inventories/')).status, 200);
    });

    it('a session cannot pass it with another user\'s passkey, nor with a replayed assertion', async () => {
      const { session: walled, authenticator } = await walledWithPasskey(org);
      const other = await walledWithPasskey(org);
      const refused = await authenticate(walled, other.authenticator, {}, { credentialId: other.authenticator.credentials[0].id });
      assert.equal(refused.status, 400);
      const options = (await walled.post('/api/v2/webauthn/authenticate/begin/', {})).body;
      const assertion = authenticator.authenticate(options);
      assert.equal((await walled.post('/api/v2/webauthn/authenticate/complete/', { credential: assertion })).status, 200);
      const replayer = await t.login(other.user);
      replayer.cookies.set('svc_webauthn', walled.cookies.get('svc_webauthn')!);
      assert.equal((await replayer.post('/api/v2/webauthn/authenticate/complete/', { credential: assertion })).status, 400);
      assert.equal((await replayer.get('/api/v2/organizations/')).status, 401);
    });

    it('an organization that starts asking walls the sessions already open; one that stops, lets them through', async () => {
      const quiet = (await newOrg(t)).id;
      const member = await newUser(t, { member: quiet });
      const open = await t.login(member);
      assert.equal((await open.get('/api/v2/inventories/')).status, 200);
      await setRequired(quiet, 'all');
      assert.deepEqual((await open.get('/api/v2/inventories/')).body, WALL);
      await setRequired(quiet, 'admins');
      assert.equal((await open.get('/api/v2/inventories/')).status, 200);
      await setRequired(quiet, 'none');
    });
  });

  describe('header credentials of users who must pass it', () => {
    let org: number;
    before(async () => {
      org = (await newOrg(t, { webauthn_required: 'all' })).id;
    });

    it('Basic authentication is refused, audited; others keep it', async () => {
      const walled = await newUser(t, { member: org });
      const res = await t.get('/api/v2/me/', { as: walled });
      assert.equal(res.status, 401);
      assert.match(res.body.detail, /Basic authentication is refused for users who must pass a second factor/);
      const [event] = await t.db.query<any>(`SELECT * FROM audit_events WHERE event_type = 'auth.login' AND actor_id = $1 ORDER BY id DESC LIMIT 1`, [walled.id]);
      assert.equal(event.outcome, 'denied');
      assert.equal(event.detail.reason, 'second_factor_required');
      // A wrong password is answered as ever, and is no proof of anything.
      const wrong = await t.get('/api/v2/me/', { as: { ...walled, password: 'wrong' } });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.detail, 'Invalid username/password.');
      // So is creating a token with Basic.
      assert.equal((await t.post('/api/v2/tokens/', {}, { as: walled })).status, 401);
      assert.equal(await count(`tokens WHERE user_id = ${walled.id}`), 0);
      const free = await newUser(t, { member: (await newOrg(t)).id });
      assert.equal((await t.get('/api/v2/me/', { as: free })).status, 200);
      assert.equal((await t.get('/api/v2/me/', { headers: { authorization: basicAuth(ADMIN) }, as: null })).status, 200);
    });

    it('a token made after passing the factor keeps working', async () => {
      const { session, authenticator } = await walledWithPasskey(org);
      assert.equal((await authenticate(session, authenticator)).status, 200);
      const token = (await session.post('/api/v2/tokens/', { description: 'cli' })).body.token;
      const res = await t.get('/api/v2/inventories/', { as: null, headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200);
      const me = await t.get('/api/v2/me/', { as: null, headers: { authorization: `Bearer ${token}` } });
      assert.equal(me.body.results[0].second_factor_pending, false);
      assert.equal(me.body.results[0].second_factor_required, true);
    });

    it('the OAuth2 password grant gives them no token', async () => {
      const app = await t.post('/api/v2/applications/', { name: 'cli-app', organization: org, client_type: 'confidential', authorization_grant_type: 'password' });
      assert.equal(app.status, 201, app.text);
      const client = `Basic ${Buffer.from(`${app.body.client_id}:${app.body.client_secret}`).toString('base64')}`;
      const grantFor = (user: User) => t.request('POST', '/api/o/token/', {
        as: null,
        headers: { authorization: client, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: 'password', username: user.username, password: user.password, scope: 'read' }).toString(),
      });
      const walled = await newUser(t, { member: org });
      const before = await count('tokens');
      const refused = await grantFor(walled);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.error, 'invalid_grant');
      assert.match(refused.body.error_description, /second factor/);
      assert.equal(await count('tokens'), before);
      await setRequired(org, 'admins');
      assert.equal((await grantFor(walled)).status, 200);
      await setRequired(org, 'all');
    });
  });
});
