import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createTestApp, newOrg, newUser, type Credentials, type Response, type TestApp } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const bearer = (token: string) => ({ as: null, headers: { authorization: `Bearer ${token}` } });
const CENSORED = '************';
const FORM = 'application/x-www-form-urlencoded';

describe('OAuth2', () => {
  let t: TestApp;
  let orgId: number;
  let alice: Credentials & { id: number };
  let outsider: Credentials & { id: number };
  let confidential: any;
  let publicApp: any;
  /** Every secret handed out in this file, to prove none is stored or logged. */
  const issued: string[] = [];

  const createApplication = async (body: Record<string, unknown>, who?: Credentials) => {
    const res = await t.post('/api/v2/applications/', { organization: orgId, ...body }, who ? { as: who } : {});
    assert.equal(res.status, 201, res.text);
    issued.push(res.body.client_secret);
    return res.body;
  };

  /** POST to the token or revoke endpoint as a form, with optional client credentials in HTTP Basic. */
  const postForm = async (url: string, params: Record<string, string>, client?: { id: string; secret: string }): Promise<Response> => {
    const headers: Record<string, string> = { 'content-type': FORM };
    if (client) headers.authorization = basic(client.id, client.secret);
    const res = await t.request('POST', url, { as: null, headers, payload: new URLSearchParams(params).toString() });
    for (const key of ['access_token', 'refresh_token']) if (typeof res.body?.[key] === 'string') issued.push(res.body[key]);
    return res;
  };

  const postJson = async (url: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> => {
    const res = await t.request('POST', url, { as: null, headers, body });
    for (const key of ['access_token', 'refresh_token']) if (typeof res.body?.[key] === 'string') issued.push(res.body[key]);
    return res;
  };

  const client = () => ({ id: confidential.client_id as string, secret: confidential.client_secret as string });
  const passwordGrant = (who: Credentials, extra: Record<string, string> = {}) =>
    postForm('/api/o/token/', { grant_type: 'password', username: who.username, password: who.password, ...extra }, client());

  before(async () => {
    t = await createTestApp();
    orgId = (await newOrg(t, { name: 'Clients' })).id;
    alice = await newUser(t, { username: 'alice', member: orgId });
    outsider = await t.createUser('outsider');
  });
  after(() => t.close());

  describe('applications', () => {
    it('POST answers 201 with client_id and the client_secret, shown this once', async () => {
      confidential = await createApplication({ name: 'cli', description: 'the command line', client_type: 'confidential', authorization_grant_type: 'password' });
      assert.equal(confidential.type, 'o_auth2_application');
      assert.equal(confidential.url, `/api/v2/applications/${confidential.id}/`);
      assert.match(confidential.client_id, /^[A-Za-z0-9]{40}$/);
      assert.match(confidential.client_secret, /^[A-Za-z0-9]{64}$/);
      assert.equal(confidential.client_type, 'confidential');
      assert.equal(confidential.authorization_grant_type, 'password');
      assert.equal(confidential.skip_authorization, false);
      assert.equal(confidential.organization, orgId);
      assert.equal(confidential.summary_fields.organization.name, 'Clients');
      assert.equal(confidential.related.named_url, '/api/v2/applications/cli++Clients/');
      assert.equal(confidential.related.tokens, `/api/v2/applications/${confidential.id}/tokens/`);

      const again = await t.get(`/api/v2/applications/${confidential.id}/`);
      assert.equal(again.body.client_secret, CENSORED);
      assert.equal(again.body.client_id, confidential.client_id);
      assert.equal((await t.get('/api/v2/applications/cli++Clients/')).body.id, confidential.id);

      publicApp = await createApplication({ name: 'spa', client_type: 'public', authorization_grant_type: 'password' });
    });

    it('stores only the SHA-256 of the client secret', async () => {
      const [row] = await t.db.query<AnyRow>('SELECT * FROM applications WHERE id = $1', [confidential.id]);
      assert.equal(row.client_secret_hash, sha256(confidential.client_secret));
      assert.ok(!JSON.stringify(row).includes(confidential.client_secret));
    });

    it('validates the grant type, client type and redirect URIs', async () => {
      const base = { organization: orgId, client_type: 'confidential' };
      const noUris = await t.post('/api/v2/applications/', { ...base, name: 'web', authorization_grant_type: 'authorization-code' });
      assert.equal(noUris.status, 400);
      assert.ok(noUris.body.redirect_uris);
      const badUri = await t.post('/api/v2/applications/', { ...base, name: 'web', authorization_grant_type: 'authorization-code', redirect_uris: 'ftp://x/cb' });
      assert.equal(badUri.status, 400);
      const web = await t.post('/api/v2/applications/', {
        ...base,
        name: 'web',
        authorization_grant_type: 'authorization-code',
        redirect_uris: 'https://web.example.com/cb http://localhost:8080/cb',
      });
      assert.equal(web.status, 201, web.text);
      issued.push(web.body.client_secret);
      const badType = await t.post('/api/v2/applications/', { ...base, name: 'x', client_type: 'secret', authorization_grant_type: 'implicit' });
      assert.equal(badType.status, 400);
      assert.deepEqual(Object.keys(badType.body).sort(), ['authorization_grant_type', 'client_type']);
      const missing = await t.post('/api/v2/applications/', { name: 'x' });
      assert.deepEqual(Object.keys(missing.body).sort(), ['authorization_grant_type', 'client_type', 'organization']);
      const duplicate = await t.post('/api/v2/applications/', { ...base, name: 'cli', authorization_grant_type: 'password' });
      assert.equal(duplicate.status, 400);
    });

    it('members of the organization see its applications; others do not; only admins change them', async () => {
      const members = await t.get('/api/v2/applications/', { as: alice });
      assert.ok(members.body.count >= 2);
      assert.ok(members.body.results.every((r: any) => r.client_secret === CENSORED));
      const others = await t.get('/api/v2/applications/', { as: outsider });
      assert.equal(others.body.count, 0);
      assert.equal((await t.get(`/api/v2/applications/${confidential.id}/`, { as: outsider })).status, 403);
      assert.equal((await t.patch(`/api/v2/applications/${confidential.id}/`, { description: 'x' }, { as: alice })).status, 403);
      assert.equal((await t.post('/api/v2/applications/', { name: 'mine', organization: orgId, client_type: 'public', authorization_grant_type: 'password' }, { as: alice })).status, 403);
      const patched = await t.patch(`/api/v2/applications/${confidential.id}/`, { description: 'changed' });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.client_secret, CENSORED);
    });

    it('tokens can be created for an application at /applications/{id}/tokens/, with a refresh token', async () => {
      const res = await t.post(`/api/v2/applications/${confidential.id}/tokens/`, { description: 'via app', scope: 'read' }, { as: alice });
      assert.equal(res.status, 201, res.text);
      issued.push(res.body.token, res.body.refresh_token);
      assert.equal(res.body.application, confidential.id);
      assert.equal(res.body.user, alice.id);
      assert.match(res.body.refresh_token, /^[A-Za-z0-9]{30}$/);
      assert.equal(res.body.summary_fields.application.name, 'cli');
      const [row] = await t.db.query<AnyRow>('SELECT refresh_token_hash FROM tokens WHERE id = $1', [res.body.id]);
      assert.equal(row.refresh_token_hash, sha256(res.body.refresh_token));
      const detail = await t.get(`/api/v2/tokens/${res.body.id}/`, { as: alice });
      assert.equal(detail.body.refresh_token, CENSORED);
      const list = await t.get(`/api/v2/applications/${confidential.id}/tokens/`, { as: alice });
      assert.equal(list.body.count, 1);
      assert.equal((await t.post(`/api/v2/applications/${confidential.id}/tokens/`, {}, { as: outsider })).status, 403);
      assert.equal((await t.post('/api/v2/tokens/', { application: confidential.id }, { as: outsider })).status, 403);
      assert.equal((await t.post('/api/v2/tokens/', { application: 999999 }, { as: alice })).status, 400);
    });
  });

  describe('password grant', () => {
    it('a form with HTTP Basic client credentials answers an access token', async () => {
      const res = await passwordGrant(alice, { scope: 'read' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
      assert.equal(res.body.token_type, 'Bearer');
      assert.equal(res.body.scope, 'read');
      assert.ok(Math.abs(res.body.expires_in - 31_536_000_000) < 60);
      assert.match(res.body.access_token, /^[A-Za-z0-9]{30}$/);
      assert.match(res.body.refresh_token, /^[A-Za-z0-9]{30}$/);
      assert.equal(res.headers['cache-control'], 'no-store');
      const me = await t.get('/api/v2/me/', bearer(res.body.access_token));
      assert.equal(me.status, 200);
      assert.equal(me.body.results[0].username, 'alice');
      assert.equal((await t.post('/api/v2/tokens/', {}, bearer(res.body.access_token))).status, 403);
      const [row] = await t.db.query<AnyRow>('SELECT * FROM tokens WHERE token_hash = $1', [sha256(res.body.access_token)]);
      assert.equal(row.application_id, confidential.id);
      assert.equal(row.user_id, alice.id);
      assert.equal(row.refresh_token_hash, sha256(res.body.refresh_token));
    });

    it('a JSON body works too, and a public client names itself with client_id', async () => {
      const res = await postJson('/api/o/token/', { grant_type: 'password', username: alice.username, password: alice.password, client_id: publicApp.client_id });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.scope, 'write');
      assert.equal((await t.post('/api/v2/tokens/', { description: 'written' }, bearer(res.body.access_token))).status, 201);
      const withBody = await postJson('/api/o/token/', {
        grant_type: 'password',
        username: alice.username,
        password: alice.password,
        client_id: confidential.client_id,
        client_secret: confidential.client_secret,
      });
      assert.equal(withBody.status, 200, withBody.text);
    });

    it('a wrong password answers 400 invalid_grant and is audited', async () => {
      const res = await passwordGrant({ username: alice.username, password: 'wrong' });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { error: 'invalid_grant', error_description: 'Invalid credentials given.' });
      const [event] = await t.db.query<AnyRow>(`SELECT * FROM audit_events WHERE event_type = 'auth.login' AND outcome = 'failure' ORDER BY id DESC LIMIT 1`);
      assert.equal(event.actor_username, 'alice');
      assert.equal(event.detail.via, 'oauth2_password_grant');
      assert.ok(!JSON.stringify(event).includes('wrong'));
    });

    it('a wrong client secret, an unknown client or none answers 401 invalid_client', async () => {
      const wrong = await postForm('/api/o/token/', { grant_type: 'password', username: alice.username, password: alice.password }, { id: confidential.client_id, secret: 'nope' });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.error, 'invalid_client');
      assert.match(String(wrong.headers['www-authenticate']), /^Basic/);
      const unknown = await postForm('/api/o/token/', { grant_type: 'password', username: alice.username, password: alice.password }, { id: 'unknown', secret: 'x' });
      assert.deepEqual([unknown.status, unknown.body.error], [401, 'invalid_client']);
      const none = await postForm('/api/o/token/', { grant_type: 'password', username: alice.username, password: alice.password });
      assert.deepEqual([none.status, none.body.error], [401, 'invalid_client']);
      const noSecret = await postForm('/api/o/token/', { grant_type: 'password', username: alice.username, password: alice.password, client_id: confidential.client_id });
      assert.deepEqual([noSecret.status, noSecret.body.error], [401, 'invalid_client']);
    });

    it('other grant types, missing parameters and bad scopes answer 400 in the OAuth2 shape', async () => {
      const unsupported = await postForm('/api/o/token/', { grant_type: 'client_credentials' }, client());
      assert.deepEqual([unsupported.status, unsupported.body.error], [400, 'unsupported_grant_type']);
      assert.equal(typeof unsupported.body.error_description, 'string');
      const noGrant = await postForm('/api/o/token/', {}, client());
      assert.deepEqual([noGrant.status, noGrant.body.error], [400, 'invalid_request']);
      const noPassword = await postForm('/api/o/token/', { grant_type: 'password', username: 'alice' }, client());
      assert.deepEqual([noPassword.status, noPassword.body.error], [400, 'invalid_request']);
      const scope = await passwordGrant(alice, { scope: 'admin' });
      assert.deepEqual([scope.status, scope.body.error], [400, 'invalid_scope']);
      const repeated = await t.request('POST', '/api/o/token/', {
        as: null,
        headers: { 'content-type': FORM, authorization: basic(client().id, client().secret) },
        payload: 'grant_type=password&username=alice&username=bob&password=x',
      });
      assert.deepEqual([repeated.status, repeated.body.error], [400, 'invalid_request']);
    });

    it('an authorization-code application may not use the password grant', async () => {
      const web = await createApplication({ name: 'web-only', client_type: 'public', authorization_grant_type: 'authorization-code', redirect_uris: 'https://example.com/cb' });
      const res = await postJson('/api/o/token/', { grant_type: 'password', username: alice.username, password: alice.password, client_id: web.client_id });
      assert.deepEqual([res.status, res.body.error], [400, 'unauthorized_client']);
    });

    it('a user outside the application organization is refused', async () => {
      const res = await passwordGrant(outsider);
      assert.deepEqual([res.status, res.body.error], [400, 'invalid_grant']);
      assert.match(res.body.error_description, /organization/);
    });

    it('an external user is refused unless ALLOW_OAUTH2_FOR_EXTERNAL_USERS', async () => {
      const sso = await newUser(t, { member: orgId });
      await t.db.query<AnyRow>(`UPDATE users SET external_account = 'github' WHERE id = $1`, [sso.id]);
      const res = await passwordGrant(sso);
      assert.deepEqual([res.status, res.body.error], [403, 'access_denied']);
      assert.match(res.body.error_description, /external authentication provider \(github\)/);
    });

    it('failed attempts for a user are throttled', async () => {
      const victim = await t.createUser('throttled');
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await passwordGrant({ username: victim.username, password: `guess-${i}` })).status);
      assert.deepEqual(statuses, [400, 400, 400, 400, 400, 429]);
      const refused = await passwordGrant(victim);
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers['retry-after']) > 0);
    });

    it('form bodies are refused by every other endpoint (415)', async () => {
      const res = await t.request('POST', '/api/v2/tokens/', { headers: { 'content-type': FORM }, payload: 'scope=read' });
      assert.equal(res.status, 415);
    });
  });

  describe('refresh grant', () => {
    it('exchanges a refresh token for a new pair and revokes the old one', async () => {
      const first = await passwordGrant(alice, { scope: 'write' });
      assert.equal(first.status, 200);
      const res = await postForm('/api/o/token/', { grant_type: 'refresh_token', refresh_token: first.body.refresh_token }, client());
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.token_type, 'Bearer');
      assert.equal(res.body.scope, 'write');
      assert.notEqual(res.body.access_token, first.body.access_token);
      assert.notEqual(res.body.refresh_token, first.body.refresh_token);
      assert.equal((await t.get('/api/v2/me/', bearer(first.body.access_token))).status, 401);
      assert.equal((await t.get('/api/v2/me/', bearer(res.body.access_token))).status, 200);
      const reused = await postForm('/api/o/token/', { grant_type: 'refresh_token', refresh_token: first.body.refresh_token }, client());
      assert.deepEqual([reused.status, reused.body.error], [400, 'invalid_grant']);
    });

    it('may narrow the scope but not widen it, and only for the application it was issued to', async () => {
      const pair = await passwordGrant(alice, { scope: 'read' });
      const wider = await postForm('/api/o/token/', { grant_type: 'refresh_token', refresh_token: pair.body.refresh_token, scope: 'write' }, client());
      assert.deepEqual([wider.status, wider.body.error], [400, 'invalid_scope']);
      const other = await postJson('/api/o/token/', { grant_type: 'refresh_token', refresh_token: pair.body.refresh_token, client_id: publicApp.client_id });
      assert.deepEqual([other.status, other.body.error], [400, 'invalid_grant']);
      assert.equal((await t.get('/api/v2/me/', bearer(pair.body.access_token))).status, 200);
      const write = await passwordGrant(alice, { scope: 'write' });
      const narrower = await postForm('/api/o/token/', { grant_type: 'refresh_token', refresh_token: write.body.refresh_token, scope: 'read' }, client());
      assert.equal(narrower.status, 200);
      assert.equal(narrower.body.scope, 'read');
    });

    it('an expired refresh token answers invalid_grant', async () => {
      const pair = await passwordGrant(alice);
      await t.db.query<AnyRow>(`UPDATE tokens SET expires = now() - interval '100 days' WHERE token_hash = $1`, [sha256(pair.body.access_token)]);
      const res = await postForm('/api/o/token/', { grant_type: 'refresh_token', refresh_token: pair.body.refresh_token }, client());
      assert.deepEqual([res.status, res.body.error], [400, 'invalid_grant']);
    });
  });

  describe('revoke_token', () => {
    it('revokes an access token at once and answers 200', async () => {
      const pair = await passwordGrant(alice);
      const res = await postForm('/api/o/revoke_token/', { token: pair.body.access_token }, client());
      assert.equal(res.status, 200, res.text);
      assert.equal((await t.get('/api/v2/me/', bearer(pair.body.access_token))).status, 401);
      const refresh = await postForm('/api/o/token/', { grant_type: 'refresh_token', refresh_token: pair.body.refresh_token }, client());
      assert.equal(refresh.status, 400);
    });

    it('revoking the refresh token ends the access token too', async () => {
      const pair = await postJson('/api/o/token/', { grant_type: 'password', username: alice.username, password: alice.password, client_id: publicApp.client_id });
      const res = await postJson('/api/o/revoke_token/', { token: pair.body.refresh_token, token_type_hint: 'refresh_token', client_id: publicApp.client_id });
      assert.equal(res.status, 200);
      assert.equal((await t.get('/api/v2/me/', bearer(pair.body.access_token))).status, 401);
    });

    it("an unknown token or another application's answers 200 and changes nothing", async () => {
      const pair = await passwordGrant(alice);
      assert.equal((await postForm('/api/o/revoke_token/', { token: 'unknown' }, client())).status, 200);
      assert.equal((await postJson('/api/o/revoke_token/', { token: pair.body.access_token, client_id: publicApp.client_id })).status, 200);
      assert.equal((await t.get('/api/v2/me/', bearer(pair.body.access_token))).status, 200);
    });

    it('needs client authentication and the token parameter', async () => {
      const pair = await passwordGrant(alice);
      const anonymous = await postForm('/api/o/revoke_token/', { token: pair.body.access_token });
      assert.deepEqual([anonymous.status, anonymous.body.error], [401, 'invalid_client']);
      const wrong = await postForm('/api/o/revoke_token/', { token: pair.body.access_token }, { id: confidential.client_id, secret: 'bad' });
      assert.equal(wrong.status, 401);
      const missing = await postForm('/api/o/revoke_token/', {}, client());
      assert.deepEqual([missing.status, missing.body.error], [400, 'invalid_request']);
      assert.equal((await t.get('/api/v2/me/', bearer(pair.body.access_token))).status, 200);
    });
  });

  describe('endpoints', () => {
    it('/api/o/ lists the endpoints; the token endpoint answers POST and OPTIONS only', async () => {
      const root = await t.get('/api/o/', { as: null });
      assert.deepEqual([root.status, root.body], [200, { token: '/api/o/token/', revoke_token: '/api/o/revoke_token/' }]);
      assert.equal((await t.get('/api/', { as: null })).body.oauth2, '/api/o/');
      const get = await t.get('/api/o/token/', { as: null });
      assert.equal(get.status, 405);
      assert.equal(get.headers.allow, 'OPTIONS, POST');
      const options = await t.request('OPTIONS', '/api/o/token/', { as: null });
      assert.equal(options.status, 200);
      assert.ok(options.body.parses.includes(FORM));
    });
  });

  describe('deleting an application', () => {
    it('revokes its tokens, with audit events', async () => {
      const app = await createApplication({ name: 'doomed', client_type: 'public', authorization_grant_type: 'password' });
      const pair = await postJson('/api/o/token/', { grant_type: 'password', username: alice.username, password: alice.password, client_id: app.client_id });
      assert.equal(pair.status, 200);
      const [token] = await t.db.query<AnyRow>('SELECT id FROM tokens WHERE token_hash = $1', [sha256(pair.body.access_token)]);
      assert.equal((await t.delete(`/api/v2/applications/${app.id}/`)).status, 204);
      assert.equal((await t.get('/api/v2/me/', bearer(pair.body.access_token))).status, 401);
      const events = await t.db.query<AnyRow>(
        `SELECT event_type, target_type, target_id FROM audit_events
         WHERE (target_type = 'o_auth2_application' AND target_id = $1) OR (target_type = 'o_auth2_access_token' AND target_id = $2) ORDER BY id`,
        [app.id, token.id],
      );
      assert.deepEqual(
        events.map((e) => e.event_type),
        ['application.created', 'token.created', 'token.revoked', 'application.deleted'],
      );
      const stream = await t.get(`/api/v2/activity_stream/?object1=o_auth2_access_token&object1_id=${token.id}&operation=delete`);
      assert.equal(stream.body.count, 1);
    });

    it('deleting the organization deletes its applications and revokes their tokens', async () => {
      const org = await newOrg(t);
      const app = (await t.post('/api/v2/applications/', { name: 'gone', organization: org.id, client_type: 'public', authorization_grant_type: 'password' })).body;
      issued.push(app.client_secret);
      const pair = await postJson('/api/o/token/', { grant_type: 'password', username: 'admin', password: 'admin-password', client_id: app.client_id });
      assert.equal(pair.status, 200, pair.text);
      assert.equal((await t.delete(`/api/v2/organizations/${org.id}/`)).status, 204);
      assert.equal((await t.get('/api/v2/me/', bearer(pair.body.access_token))).status, 401);
      const events = await t.db.query<AnyRow>(`SELECT event_type FROM audit_events WHERE target_type = 'o_auth2_application' AND target_id = $1 ORDER BY id`, [app.id]);
      assert.deepEqual(events.map((e) => e.event_type), ['application.created', 'application.deleted']);
    });

    it("deleting a user revokes the user's tokens, with records", async () => {
      const gone = await t.createUser('leaving');
      const token = await t.post('/api/v2/tokens/', { description: 'left behind' }, { as: gone });
      issued.push(token.body.token);
      assert.equal((await t.delete(`/api/v2/users/${gone.id}/`)).status, 204);
      assert.equal((await t.get('/api/v2/me/', bearer(token.body.token))).status, 401);
      const events = await t.db.query<AnyRow>(`SELECT event_type FROM audit_events WHERE target_type = 'o_auth2_access_token' AND target_id = $1 ORDER BY id`, [token.body.id]);
      assert.deepEqual(events.map((e) => e.event_type), ['token.created', 'token.revoked']);
    });
  });

  describe('records', () => {
    it('neither the activity stream nor the audit log holds a secret', async () => {
      const created = await t.get(`/api/v2/activity_stream/?object1=o_auth2_application&object1_id=${confidential.id}&operation=create`);
      assert.equal(created.body.results[0].changes.client_secret, 'hidden');
      const stream = JSON.stringify(await t.db.query<AnyRow>('SELECT * FROM activity_stream'));
      const audit = JSON.stringify(await t.db.query<AnyRow>('SELECT * FROM audit_events'));
      assert.ok(issued.length > 10);
      for (const value of issued) {
        assert.ok(!stream.includes(value), 'activity stream holds a secret');
        assert.ok(!audit.includes(value), 'audit log holds a secret');
        assert.ok(!stream.includes(sha256(value)) && !audit.includes(sha256(value)), 'a secret hash is logged');
      }
    });
  });
});
