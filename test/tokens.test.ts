import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestApp, type Credentials, type TestApp } from './helpers/app.ts';
import { runManageCommand } from '../src/cli/manage.ts';
import { loadEnvConfig, type EnvConfig } from '../src/config/env.ts';
import { openServices } from '../src/server/start.ts';
import { buildApp } from '../src/server/app.ts';
import type { RunServices } from '../src/runs/run-services.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const bearer = (token: string) => ({ as: null, headers: { authorization: `Bearer ${token}` } });
const CENSORED = '************';

describe('tokens', () => {
  let t: TestApp;
  let alice: Credentials & { id: number };
  let bob: Credentials & { id: number };
  /** Every token value handed out in this file, to prove none is stored or logged. */
  const issued: string[] = [];

  const createToken = async (who: Credentials, body: Record<string, unknown> = {}) => {
    const res = await t.post('/api/v2/tokens/', body, { as: who });
    assert.equal(res.status, 201, res.text);
    issued.push(res.body.token);
    return res.body;
  };

  before(async () => {
    t = await createTestApp();
    alice = await t.createUser('alice');
    bob = await t.createUser('bob');
  });
  after(() => t.close());

  describe('creating', () => {
    it('POST with basic auth answers 201 with the token, shown this once', async () => {
      const before = Date.now();
      const res = await t.post('/api/v2/tokens/', { description: 'laptop', scope: 'write' }, { as: alice });
      assert.equal(res.status, 201, res.text);
      const token = res.body;
      issued.push(token.token);
      assert.equal(token.type, 'o_auth2_access_token');
      assert.equal(token.url, `/api/v2/tokens/${token.id}/`);
      assert.match(token.token, /^[A-Za-z0-9]{30}$/);
      assert.equal(token.refresh_token, null);
      assert.equal(token.scope, 'write');
      assert.equal(token.description, 'laptop');
      assert.equal(token.user, alice.id);
      assert.equal(token.application, null);
      assert.equal(token.summary_fields.user.username, 'alice');
      assert.equal(token.related.user, `/api/v2/users/${alice.id}/`);
      assert.equal(token.related.activity_stream, `/api/v2/tokens/${token.id}/activity_stream/`);
      // ACCESS_TOKEN_EXPIRE_SECONDS defaults to 31536000000 seconds: about a thousand years.
      const expires = new Date(token.expires).getTime();
      const expected = before + 31_536_000_000 * 1000;
      assert.ok(Math.abs(expires - expected) < 60_000, token.expires);

      const again = await t.get(`/api/v2/tokens/${token.id}/`, { as: alice });
      assert.equal(again.status, 200);
      assert.equal(again.body.token, CENSORED);
      assert.equal(again.body.refresh_token, null);
      const list = await t.get('/api/v2/tokens/', { as: alice });
      assert.deepEqual(list.body.results.map((r: any) => r.token), [CENSORED]);
    });

    it('defaults to write scope and accepts "read write" as write', async () => {
      assert.equal((await createToken(alice)).scope, 'write');
      assert.equal((await createToken(alice, { scope: 'read write' })).scope, 'write');
    });

    it('refuses a scope other than read or write with 400', async () => {
      for (const scope of ['admin', '', 'read read', 5, null]) {
        const res = await t.post('/api/v2/tokens/', { scope }, { as: alice });
        assert.equal(res.status, 400, JSON.stringify(scope));
        assert.deepEqual(Object.keys(res.body), ['scope']);
      }
      const [{ count }] = await t.db.query<AnyRow>('SELECT count(*)::int AS count FROM tokens WHERE user_id = $1', [alice.id]);
      assert.equal(count, 3);
    });

    it('stores only the SHA-256 of the token', async () => {
      const token = await createToken(bob, { description: 'hashed' });
      const [row] = await t.db.query<AnyRow>('SELECT * FROM tokens WHERE id = $1', [token.id]);
      assert.equal(row.token_hash, sha256(token.token));
      assert.ok(!JSON.stringify(row).includes(token.token));
      const all = JSON.stringify(await t.db.query<AnyRow>('SELECT * FROM tokens'));
      for (const value of issued) assert.ok(!all.includes(value));
    });

    it('OPTIONS lists description, application and scope as writable, never the token', async () => {
      const res = await t.request('OPTIONS', '/api/v2/tokens/', { as: alice });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body.actions.POST).sort(), ['application', 'description', 'scope']);
      assert.deepEqual(res.body.actions.POST.scope.choices, [['read', 'read'], ['write', 'write']]);
      assert.equal(res.body.actions.GET.token.filterable, false);
    });

    it('refuses filtering and ordering on the token', async () => {
      assert.equal((await t.get('/api/v2/tokens/?token=abc')).status, 403);
      assert.equal((await t.get('/api/v2/tokens/?token__startswith=a')).status, 403);
      assert.equal((await t.get('/api/v2/tokens/?order_by=token')).status, 400);
    });
  });

  describe('as bearer credentials', () => {
    it('a token authenticates GET requests as its user', async () => {
      const { token } = await createToken(alice, { description: 'bearer' });
      const me = await t.get('/api/v2/me/', bearer(token));
      assert.equal(me.status, 200);
      assert.equal(me.body.results[0].username, 'alice');
      const [row] = await t.db.query<AnyRow>('SELECT last_used FROM tokens WHERE token_hash = $1', [sha256(token)]);
      assert.ok(row.last_used instanceof Date);
    });

    it('a read token may GET, HEAD and OPTIONS, but not POST, PATCH or DELETE (403)', async () => {
      const readToken = await createToken(alice, { scope: 'read' });
      const other = await createToken(alice, { description: 'target' });
      const auth = bearer(readToken.token);
      assert.equal((await t.get('/api/v2/tokens/', auth)).status, 200);
      assert.equal((await t.request('HEAD', '/api/v2/tokens/', auth)).status, 200);
      assert.equal((await t.request('OPTIONS', '/api/v2/tokens/', auth)).status, 200);
      const post = await t.post('/api/v2/tokens/', { scope: 'read' }, auth);
      assert.deepEqual([post.status, post.body], [403, { detail: 'A read-scoped token cannot change anything.' }]);
      assert.equal((await t.patch(`/api/v2/users/${alice.id}/`, { first_name: 'A' }, auth)).status, 403);
      assert.equal((await t.patch(`/api/v2/tokens/${other.id}/`, { description: 'x' }, auth)).status, 403);
      assert.equal((await t.delete(`/api/v2/tokens/${other.id}/`, auth)).status, 403);
      assert.equal((await t.get(`/api/v2/tokens/${other.id}/`, auth)).body.description, 'target');
    });

    it('a write token may change things', async () => {
      const { token } = await createToken(alice, { scope: 'write' });
      const auth = bearer(token);
      const created = await t.post('/api/v2/tokens/', { description: 'made with a token', scope: 'read' }, auth);
      assert.equal(created.status, 201);
      issued.push(created.body.token);
      assert.equal(created.body.user, alice.id);
      const patched = await t.patch(`/api/v2/users/${alice.id}/`, { first_name: 'Alice' }, auth);
      assert.equal(patched.status, 200);
      assert.equal(patched.body.first_name, 'Alice');
    });

    it('an unknown token answers 401', async () => {
      const res = await t.get('/api/v2/me/', bearer('not-a-token'));
      assert.deepEqual([res.status, res.body], [401, { detail: 'Invalid token.' }]);
      assert.equal((await t.get('/api/v2/me/', { as: null, headers: { authorization: 'Bearer' } })).status, 401);
    });

    it('an expired token answers 401', async () => {
      const { id, token } = await createToken(alice);
      assert.equal((await t.get('/api/v2/me/', bearer(token))).status, 200);
      await t.db.query<AnyRow>(`UPDATE tokens SET expires = now() - interval '1 second' WHERE id = $1`, [id]);
      const res = await t.get('/api/v2/me/', bearer(token));
      assert.deepEqual([res.status, res.body], [401, { detail: 'Token expired.' }]);
    });

    it("an inactive user's token answers 401", async () => {
      const carol = await t.createUser('carol-inactive');
      const { token } = await createToken(carol);
      await t.db.query<AnyRow>('UPDATE users SET is_active = false WHERE id = $1', [carol.id]);
      assert.equal((await t.get('/api/v2/me/', bearer(token))).status, 401);
    });

    it('last_used is written at most once a minute', async () => {
      const { id, token } = await createToken(bob);
      assert.equal((await t.get('/api/v2/me/', bearer(token))).status, 200);
      const recent = new Date(Date.now() - 30_000);
      await t.db.query<AnyRow>('UPDATE tokens SET last_used = $2 WHERE id = $1', [id, recent]);
      assert.equal((await t.get('/api/v2/me/', bearer(token))).status, 200);
      const [kept] = await t.db.query<AnyRow>('SELECT last_used FROM tokens WHERE id = $1', [id]);
      assert.equal(kept.last_used.getTime(), recent.getTime());
      const old = new Date(Date.now() - 120_000);
      await t.db.query<AnyRow>('UPDATE tokens SET last_used = $2 WHERE id = $1', [id, old]);
      assert.equal((await t.get('/api/v2/me/', bearer(token))).status, 200);
      const [updated] = await t.db.query<AnyRow>('SELECT last_used FROM tokens WHERE id = $1', [id]);
      assert.ok(updated.last_used.getTime() > old.getTime() + 60_000);
    });

    it('DELETE revokes a token at once', async () => {
      const { id, token } = await createToken(alice, { description: 'short-lived' });
      assert.equal((await t.get('/api/v2/me/', bearer(token))).status, 200);
      assert.equal((await t.delete(`/api/v2/tokens/${id}/`, { as: alice })).status, 204);
      assert.equal((await t.get('/api/v2/me/', bearer(token))).status, 401);
      assert.equal((await t.get(`/api/v2/tokens/${id}/`, { as: alice })).status, 404);
    });

    it('a token may revoke itself', async () => {
      const { id, token } = await createToken(alice, { description: 'self' });
      assert.equal((await t.delete(`/api/v2/tokens/${id}/`, bearer(token))).status, 204);
      assert.equal((await t.get('/api/v2/me/', bearer(token))).status, 401);
    });
  });

  describe('who sees and changes tokens', () => {
    it('a user lists only his own tokens; a superuser lists all', async () => {
      const [{ mine }] = await t.db.query<AnyRow>('SELECT count(*)::int AS mine FROM tokens WHERE user_id = $1', [bob.id]);
      const [{ total }] = await t.db.query<AnyRow>('SELECT count(*)::int AS total FROM tokens');
      const bobs = await t.get('/api/v2/tokens/', { as: bob });
      assert.equal(bobs.body.count, mine);
      assert.ok(bobs.body.results.every((r: any) => r.user === bob.id));
      assert.equal((await t.get('/api/v2/tokens/')).body.count, total);
      assert.ok(total > mine);
    });

    it("another user's token answers 403 to detail, PATCH and DELETE", async () => {
      const token = await createToken(alice, { description: 'private' });
      assert.equal((await t.get(`/api/v2/tokens/${token.id}/`, { as: bob })).status, 403);
      assert.equal((await t.patch(`/api/v2/tokens/${token.id}/`, { description: 'mine now' }, { as: bob })).status, 403);
      assert.equal((await t.delete(`/api/v2/tokens/${token.id}/`, { as: bob })).status, 403);
      const admin = await t.get(`/api/v2/tokens/${token.id}/`);
      assert.equal(admin.status, 200);
      assert.equal(admin.body.token, CENSORED);
    });

    it('the owner may PATCH description and scope; the application stays', async () => {
      const token = await createToken(alice, { description: 'before', scope: 'write' });
      const res = await t.patch(`/api/v2/tokens/${token.id}/`, { description: 'after', scope: 'read' }, { as: alice });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.description, 'after');
      assert.equal(res.body.scope, 'read');
      assert.equal(res.body.token, CENSORED);
      assert.equal((await t.post('/api/v2/tokens/', {}, bearer(token.token))).status, 403);
      const bad = await t.patch(`/api/v2/tokens/${token.id}/`, { scope: 'all' }, { as: alice });
      assert.equal(bad.status, 400);
      const [row] = await t.db.query<AnyRow>('SELECT token_hash FROM tokens WHERE id = $1', [token.id]);
      assert.equal(row.token_hash, sha256(token.token));
    });
  });

  describe('tokens of a user', () => {
    it('personal_tokens: POST creates a token without application for the caller only', async () => {
      const res = await t.post(`/api/v2/users/${alice.id}/personal_tokens/`, { description: 'personal', scope: 'read' }, { as: alice });
      assert.equal(res.status, 201, res.text);
      issued.push(res.body.token);
      assert.equal(res.body.user, alice.id);
      assert.equal(res.body.application, null);
      assert.match(res.body.token, /^[A-Za-z0-9]{30}$/);
      // The awx CLI names the user in the URL and sends application null.
      const named = await t.post('/api/v2/users/alice/personal_tokens/', { description: 'AWX CLI', application: null, scope: 'write' }, { as: alice });
      assert.equal(named.status, 201);
      issued.push(named.body.token);
    });

    it('personal_tokens for another user answers 403, to a superuser too', async () => {
      assert.equal((await t.post(`/api/v2/users/${bob.id}/personal_tokens/`, { scope: 'read' }, { as: alice })).status, 403);
      assert.equal((await t.post(`/api/v2/users/${bob.id}/personal_tokens/`, { scope: 'read' })).status, 403);
      assert.equal((await t.post(`/api/v2/users/${bob.id}/tokens/`, { scope: 'read' })).status, 403);
      const [{ count }] = await t.db.query<AnyRow>(`SELECT count(*)::int AS count FROM tokens WHERE user_id = $1 AND scope = 'read'`, [bob.id]);
      assert.equal(count, 0);
    });

    it("tokens/ lists all of a user's tokens, personal_tokens/ those without application", async () => {
      const [{ count }] = await t.db.query<AnyRow>('SELECT count(*)::int AS count FROM tokens WHERE user_id = $1', [alice.id]);
      const all = await t.get(`/api/v2/users/${alice.id}/tokens/`, { as: alice });
      assert.equal(all.status, 200);
      assert.equal(all.body.count, count);
      const personal = await t.get(`/api/v2/users/${alice.id}/personal_tokens/`, { as: alice });
      assert.equal(personal.body.count, count);
      assert.ok(personal.body.results.every((r: any) => r.application === null && r.token === CENSORED));
      const user = await t.get(`/api/v2/users/${alice.id}/`, { as: alice });
      assert.equal(user.body.related.tokens, `/api/v2/users/${alice.id}/tokens/`);
      assert.equal(user.body.related.personal_tokens, `/api/v2/users/${alice.id}/personal_tokens/`);
      // Bob does not see Alice (no common organization); a superuser sees her tokens.
      assert.equal((await t.get(`/api/v2/users/${alice.id}/tokens/`, { as: bob })).status, 403);
      assert.equal((await t.get(`/api/v2/users/${alice.id}/tokens/`)).body.count, count);
    });
  });

  describe('users from external authentication', () => {
    let sso: Credentials & { id: number };
    let ldap: Credentials & { id: number };
    before(async () => {
      sso = await t.createUser('sso-user');
      ldap = await t.createUser('ldap-user');
      await t.db.query<AnyRow>(`UPDATE users SET external_account = 'social' WHERE id = $1`, [sso.id]);
      await t.db.query<AnyRow>(`UPDATE users SET ldap_dn = 'cn=ldap-user,dc=example,dc=com' WHERE id = $1`, [ldap.id]);
    });

    it('cannot create tokens unless ALLOW_OAUTH2_FOR_EXTERNAL_USERS', async () => {
      for (const [who, provider] of [[sso, 'social'], [ldap, 'ldap']] as const) {
        const res = await t.post('/api/v2/tokens/', { scope: 'read' }, { as: who });
        assert.equal(res.status, 403, who.username);
        assert.match(res.body.detail, new RegExp(`external authentication provider \\(${provider}\\)`));
        assert.match(res.body.detail, /ALLOW_OAUTH2_FOR_EXTERNAL_USERS/);
        assert.equal((await t.post(`/api/v2/users/${who.id}/personal_tokens/`, {}, { as: who })).status, 403);
      }
      const [{ count }] = await t.db.query<AnyRow>('SELECT count(*)::int AS count FROM tokens WHERE user_id = ANY($1)', [[sso.id, ldap.id]]);
      assert.equal(count, 0);
    });

    it('may once the setting allows it, and keep their tokens when it is turned off', async () => {
      assert.equal((await t.patch('/api/v2/settings/authentication/', { ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true })).status, 200);
      const token = await createToken(sso, { scope: 'read' });
      assert.equal((await t.patch('/api/v2/settings/authentication/', { ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false })).status, 200);
      assert.equal((await t.get('/api/v2/me/', bearer(token.token))).status, 200);
      assert.equal((await t.post('/api/v2/tokens/', {}, { as: sso })).status, 403);
    });
  });

  describe('settings', () => {
    it('ACCESS_TOKEN_EXPIRE_SECONDS sets the expiry of new tokens', async () => {
      const res = await t.patch('/api/v2/settings/authentication/', { OAUTH2_PROVIDER: { ACCESS_TOKEN_EXPIRE_SECONDS: 3600 } });
      assert.equal(res.status, 200, res.text);
      try {
        const before = Date.now();
        const token = await createToken(bob);
        const expires = new Date(token.expires).getTime();
        assert.ok(expires >= before + 3_599_000 && expires <= Date.now() + 3_600_000, token.expires);
      } finally {
        await t.patch('/api/v2/settings/authentication/', { OAUTH2_PROVIDER: { ACCESS_TOKEN_EXPIRE_SECONDS: 31_536_000_000 } });
      }
    });
  });

  describe('records', () => {
    it('audit events for token creation and revocation, without token values', async () => {
      const token = await createToken(bob, { description: 'audited', scope: 'read' });
      assert.equal((await t.delete(`/api/v2/tokens/${token.id}/`, { as: bob })).status, 204);
      const events = await t.db.query<AnyRow>(
        `SELECT event_type, outcome, actor_username, target_type, target_id, auth_method, detail FROM audit_events
         WHERE target_type = 'o_auth2_access_token' AND target_id = $1 ORDER BY id`,
        [token.id],
      );
      assert.deepEqual(
        events.map((e) => [e.event_type, e.outcome, e.actor_username, e.auth_method]),
        [
          ['token.created', 'success', 'bob', 'basic'],
          ['token.revoked', 'success', 'bob', 'basic'],
        ],
      );
      assert.equal(events[0].detail.scope, 'read');
      assert.equal(events[0].detail.user, bob.id);
    });

    it('the activity stream records tokens but never their values', async () => {
      const token = await createToken(alice, { description: 'streamed' });
      const res = await t.get(`/api/v2/activity_stream/?object1=o_auth2_access_token&object1_id=${token.id}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 1);
      const [entry] = res.body.results;
      assert.equal(entry.operation, 'create');
      assert.equal(entry.changes.token, 'hidden');
      assert.equal(entry.changes.description, 'streamed');
      const stream = JSON.stringify(await t.db.query<AnyRow>('SELECT * FROM activity_stream'));
      const audit = JSON.stringify(await t.db.query<AnyRow>('SELECT * FROM audit_events'));
      assert.ok(issued.length > 10);
      for (const value of issued) {
        assert.ok(!stream.includes(value), 'activity stream holds a token');
        assert.ok(!audit.includes(value), 'audit log holds a token');
        assert.ok(!stream.includes(sha256(value)) && !audit.includes(sha256(value)), 'a token hash is logged');
      }
    });
  });

  describe('gateway probe', () => {
    it('GET and POST /api/gateway/v1/tokens/ answer a plain 404', async () => {
      const get = await t.get('/api/gateway/v1/tokens/');
      assert.deepEqual([get.status, get.body], [404, { detail: 'Not found.' }]);
      const post = await t.post('/api/gateway/v1/tokens/', { description: 'probe', application: null, scope: 'write' }, { as: alice });
      assert.deepEqual([post.status, post.body], [404, { detail: 'Not found.' }]);
    });
  });
});

describe('token management commands', () => {
  let env: EnvConfig;
  const manage = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runManageCommand(env, args, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, out, err };
  };
  /** Opens the data directory once the command is done (an embedded database serves one process at a time). */
  const inspect = async <T>(fn: (services: RunServices) => Promise<T>): Promise<T> => {
    const services = await openServices(env);
    try {
      return await fn(services);
    } finally {
      await services.db.close();
    }
  };

  before(async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'drover-tokens-manage-'));
    env = await loadEnvConfig({ SVC_DATA_DIR: dataDir, SVC_ADMIN_PASSWORD: 'x', SVC_NODE_NAME: 'tokens-node' });
    await inspect(({ db }) => db.query<AnyRow>(`INSERT INTO users (username) VALUES ('robot'), ('remote')`));
  });

  it('create_oauth2_token prints a write token for the user, which works as bearer', async () => {
    const res = await manage('create_oauth2_token', '--user', 'robot');
    assert.equal(res.code, 0, res.err.join('\n'));
    assert.equal(res.out.length, 1);
    const token = res.out[0];
    assert.match(token, /^[A-Za-z0-9]{30}$/);
    await inspect(async (services) => {
      const [row] = await services.db.query<AnyRow>('SELECT tokens.*, users.username FROM tokens JOIN users ON users.id = tokens.user_id WHERE token_hash = $1', [sha256(token)]);
      assert.equal(row.username, 'robot');
      assert.equal(row.scope, 'write');
      assert.equal(row.application_id, null);
      assert.equal(row.created_by_id, null);
      const [event] = await services.db.query<AnyRow>(`SELECT event_type, actor_username FROM audit_events WHERE target_id = $1 AND target_type = 'o_auth2_access_token'`, [row.id]);
      assert.deepEqual(event, { event_type: 'token.created', actor_username: '' });
      const app = await buildApp(services);
      try {
        const me = await app.inject({ method: 'GET', url: '/api/v2/me/', headers: { authorization: `Bearer ${token}` } });
        assert.equal(me.statusCode, 200);
        assert.equal(JSON.parse(me.body).results[0].username, 'robot');
      } finally {
        await app.close();
      }
    });
  });

  it('create_oauth2_token fails for an unknown user, an external user, or without --user', async () => {
    const unknown = await manage('create_oauth2_token', '--user', 'nobody');
    assert.deepEqual([unknown.code, unknown.err], [1, ['Error: user "nobody" does not exist']]);
    await inspect(({ db }) => db.query<AnyRow>(`UPDATE users SET external_account = 'saml' WHERE username = 'remote'`));
    const external = await manage('create_oauth2_token', '--user', 'remote');
    assert.equal(external.code, 1);
    assert.match(external.err[0], /external authentication provider \(saml\)/);
    const missing = await manage('create_oauth2_token');
    assert.equal(missing.code, 2);
    assert.match(missing.err[0], /--user is required/);
  });

  it('cleanup_tokens deletes expired tokens and says how many', async () => {
    await inspect(async ({ db }) => {
      const [{ id }] = await db.query<AnyRow>(`SELECT id FROM users WHERE username = 'robot'`);
      await db.query<AnyRow>(
        `INSERT INTO tokens (user_id, token_hash, refresh_token_hash, expires) VALUES
           ($1, 'expired-1', NULL, now() - interval '1 day'),
           ($1, 'expired-2', NULL, now() - interval '1 minute'),
           ($1, 'expired-refreshable', 'refresh-1', now() - interval '1 minute'),
           ($1, 'expired-refresh-too', 'refresh-2', now() - interval '100 days'),
           ($1, 'live', NULL, now() + interval '1 day')`,
        [id],
      );
    });
    const res = await manage('cleanup_tokens');
    assert.deepEqual(res, { code: 0, out: ['Deleted 3 expired tokens.'], err: [] });
    const left = await inspect(({ db }) => db.query<AnyRow>(`SELECT token_hash FROM tokens WHERE description = '' ORDER BY token_hash`));
    assert.deepEqual(left.map((r) => r.token_hash), ['expired-refreshable', 'live']);
    assert.deepEqual((await manage('cleanup_tokens')).out, ['Deleted 0 expired tokens.']);
    const help = await manage('help');
    assert.ok(help.out.some((l) => l.trimStart().startsWith('create_oauth2_token')));
    assert.ok(help.out.some((l) => l.trimStart().startsWith('cleanup_tokens')));
  });
});
