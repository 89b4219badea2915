import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import { ADMIN, createTestApp, setCookies, type Credentials, type Response, type SessionClient, type TestApp } from './helpers/app.ts';
import { originTrusted } from '../src/auth/csrf.ts';
import { safeNext } from '../src/auth/login-routes.ts';
import { deleteExpiredSessions } from '../src/auth/sessions.ts';
import { runManageCommand } from '../src/cli/manage.ts';
import { loadEnvConfig } from '../src/config/env.ts';
import { openServices } from '../src/server/start.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The attributes of one Set-Cookie header, lower-cased, without the name=value pair. */
function cookieAttributes(res: Response, name: string): string[] {
  const cookie = setCookies(res).get(name);
  assert.ok(cookie, `Set-Cookie ${name}`);
  return cookie.attributes.map((a) => a.toLowerCase());
}

const cookieHeader = (cookies: Record<string, string>) => Object.entries(cookies).map(([k, v]) => `${k}=${v}`).join('; ');

describe('sessions', () => {
  let t: TestApp;
  let trusted: string;
  let alice: Credentials & { id: number };

  const auditRows = (type: string, username: string) =>
    t.db.query<AnyRow>('SELECT * FROM audit_events WHERE event_type = $1 AND actor_username = $2 ORDER BY id', [type, username]);
  const sessionRows = (userId: number) => t.db.query<AnyRow>('SELECT * FROM sessions WHERE user_id = $1 ORDER BY id', [userId]);

  before(async () => {
    t = await createTestApp();
    trusted = t.env.csrfTrustedOrigins[0];
    alice = await t.createUser('alice');
  });
  after(() => t.close());

  describe('login', () => {
    it('GET /api/ sets a csrftoken cookie readable by scripts', async () => {
      const res = await t.get('/api/', { as: null });
      assert.equal(res.status, 200);
      const cookie = setCookies(res).get('csrftoken');
      assert.match(cookie?.value ?? '', /^[A-Za-z0-9]{64}$/);
      const attributes = cookieAttributes(res, 'csrftoken');
      assert.ok(!attributes.includes('httponly'));
      assert.ok(attributes.includes('samesite=lax'));
      assert.ok(attributes.includes('path=/'));
      // A client that holds a token keeps it.
      const again = await t.get('/api/', { as: null, headers: { cookie: `csrftoken=${cookie!.value}` } });
      assert.equal(setCookies(again).get('csrftoken'), undefined);
    });

    it('GET /api/login/ answers a login form and names the session cookie', async () => {
      const res = await t.get('/api/login/?next=/api/v2/me/', { as: null });
      assert.equal(res.status, 200);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.headers['x-api-session-cookie-name'], 'svc_sessionid');
      const token = setCookies(res).get('csrftoken')!.value!;
      assert.ok(res.text.includes(`name="csrfmiddlewaretoken" value="${token}"`));
      assert.ok(res.text.includes('name="next" value="/api/v2/me/"'));
      const evil = await t.get('/api/login/?next=https://evil.example/', { as: null });
      assert.ok(!evil.text.includes('evil.example'));
      const options = await t.request('OPTIONS', '/api/login/', { as: null });
      assert.equal(options.status, 200);
      assert.ok(options.body.parses.includes('application/x-www-form-urlencoded'));
    });

    it('JSON login answers the user and sets the session and CSRF cookies', async () => {
      const res = await t.post('/api/login/', { username: 'alice', password: alice.password }, { as: null });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, alice.id);
      assert.equal(res.body.type, 'user');
      assert.equal(res.body.username, 'alice');
      assert.equal(res.body.password, '$encrypted$');
      const me = await t.get('/api/v2/me/', { as: alice });
      assert.deepEqual(Object.keys(res.body).sort(), Object.keys(me.body.results[0]).sort());
      assert.equal(res.headers['x-api-session-cookie-name'], 'svc_sessionid');
      assert.equal(res.headers['session-timeout'], '1800');

      const session = setCookies(res).get('svc_sessionid')!;
      assert.ok(session.value && session.value.length >= 40);
      const sessionAttributes = cookieAttributes(res, 'svc_sessionid');
      for (const a of ['httponly', 'samesite=lax', 'path=/', 'max-age=1800']) assert.ok(sessionAttributes.includes(a), a);
      assert.ok(!sessionAttributes.includes('secure'), 'SESSION_COOKIE_SECURE is false in this app');
      const csrfAttributes = cookieAttributes(res, 'csrftoken');
      assert.ok(!csrfAttributes.includes('httponly'));

      // Only the key's hash is stored.
      const rows = await sessionRows(alice.id);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].key_hash, sha256(session.value));
      assert.ok(!JSON.stringify(rows).includes(session.value));
      assert.equal(rows[0].remote_addr, '127.0.0.1');
      const [user] = await t.db.query<AnyRow>('SELECT last_login FROM users WHERE id = $1', [alice.id]);
      assert.ok(user.last_login instanceof Date);
    });

    it('a session authenticates requests; without the cookie they are anonymous', async () => {
      const s = await t.login(alice);
      const me = await s.get('/api/v2/me/');
      assert.equal(me.status, 200);
      assert.equal(me.body.results[0].username, 'alice');
      assert.equal(me.headers['session-timeout'], '1800');
      assert.equal((await t.get('/api/v2/me/', { as: null })).status, 401);
      const bogus = await t.get('/api/v2/me/', { as: null, headers: { cookie: 'svc_sessionid=not-a-session' } });
      assert.equal(bogus.status, 401);
      assert.match(bogus.body.detail, /session/i);
      // Public endpoints ignore a stale cookie.
      assert.equal((await t.get('/api/v2/ping/', { as: null, headers: { cookie: 'svc_sessionid=not-a-session' } })).status, 200);
    });

    it('a form login redirects to next', async () => {
      const res = await t.request('POST', '/api/login/', {
        as: null,
        headers: FORM,
        payload: form({ username: 'alice', password: alice.password, next: '/api/v2/me/?x=1' }),
      });
      assert.equal(res.status, 302, res.text);
      assert.equal(res.headers.location, '/api/v2/me/?x=1');
      assert.equal(res.headers['x-api-session-cookie-name'], 'svc_sessionid');
      const key = setCookies(res).get('svc_sessionid')!.value!;
      const me = await t.get('/api/v2/me/', { as: null, headers: { cookie: `svc_sessionid=${key}` } });
      assert.equal(me.body.results[0].username, 'alice');
      const plain = await t.request('POST', '/api/login/', { as: null, headers: FORM, payload: form({ username: 'alice', password: alice.password }) });
      assert.equal(plain.headers.location, '/api/');
    });

    it('a form login never redirects to another site', async () => {
      for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example', '\\\\evil.example', 'javascript:alert(1)', '/\t/evil.example', 'evil.example', 'http:/evil.example']) {
        const res = await t.request('POST', '/api/login/', { as: null, headers: FORM, payload: form({ username: 'alice', password: alice.password, next }) });
        assert.equal(res.status, 302, next);
        assert.equal(res.headers.location, '/api/', JSON.stringify(next));
      }
      assert.equal(safeNext('/api/v2/jobs/?page=2#top'), '/api/v2/jobs/?page=2#top');
      assert.equal(safeNext('//evil.example'), null);
      assert.equal(safeNext('/ok/../..//evil.example'), '/ok/../..//evil.example');
      assert.equal(new URL(safeNext('/ok/../..//evil.example')!, 'http://drover.invalid').host, 'drover.invalid');
    });

    it('wrong credentials answer 401 without a cookie; a missing field 400', async () => {
      const res = await t.post('/api/login/', { username: 'alice', password: 'wrong' }, { as: null, headers: { 'x-forwarded-for': '10.1.0.1' } });
      assert.deepEqual([res.status, res.body], [401, { detail: 'Invalid username or password.' }]);
      assert.equal(setCookies(res).get('svc_sessionid'), undefined);
      const missing = await t.post('/api/login/', { username: 'alice' }, { as: null });
      assert.deepEqual([missing.status, missing.body], [400, { password: ['This field is required.'] }]);
      const notObject = await t.post('/api/login/', ['alice'], { as: null });
      assert.equal(notObject.status, 400);
      const nul = await t.post('/api/login/', { username: 'ali\u0000ce', password: 'x' }, { as: null });
      assert.deepEqual([nul.status, nul.body], [400, { username: ['Null characters are not allowed.'] }]);
      const html = await t.request('POST', '/api/login/', {
        as: null,
        headers: { ...FORM, accept: 'text/html,application/xhtml+xml', 'x-forwarded-for': '10.1.0.1' },
        payload: form({ username: 'alice', password: 'wrong' }),
      });
      assert.equal(html.status, 401);
      assert.match(String(html.headers['content-type']), /^text\/html/);
      assert.ok(html.text.includes('Invalid username or password.'));
    });

    it('only the login endpoint accepts form bodies', async () => {
      const s = await t.login(ADMIN);
      const res = await s.request('POST', '/api/v2/organizations/', { payload: 'name=FormOrg', headers: FORM });
      assert.equal(res.status, 415);
      const basic = await t.request('POST', '/api/v2/organizations/', { payload: 'name=FormOrg', headers: FORM });
      assert.equal(basic.status, 415);
      const other = await t.request('POST', '/api/login/', { as: null, payload: '<x/>', headers: { 'content-type': 'application/xml' } });
      assert.equal(other.status, 415);
    });

    it('a login replaces the session the client came with', async () => {
      const s = await t.login(alice);
      const oldKey = s.cookies.get('svc_sessionid')!;
      const res = await s.post('/api/login/', { username: 'alice', password: alice.password });
      assert.equal(res.status, 200);
      assert.notEqual(s.cookies.get('svc_sessionid'), oldKey);
      const stale = await t.get('/api/v2/me/', { as: null, headers: { cookie: `svc_sessionid=${oldKey}` } });
      assert.equal(stale.status, 401);
    });

    it('the CSRF token is rotated by a login', async () => {
      const first = await t.get('/api/', { as: null });
      const before = setCookies(first).get('csrftoken')!.value!;
      const res = await t.post('/api/login/', { username: 'alice', password: alice.password }, { as: null, headers: { cookie: `csrftoken=${before}` } });
      assert.equal(res.status, 200);
      const after = setCookies(res).get('csrftoken')!.value!;
      assert.notEqual(after, before);
    });
  });

  describe('CSRF', () => {
    let s: SessionClient;
    const orgCount = async () => (await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM organizations'))[0].n as number;
    before(async () => {
      s = await t.login(ADMIN);
    });

    it('a write with the token and a trusted Origin succeeds', async () => {
      const res = await s.post('/api/v2/organizations/', { name: 'CSRF-ok' });
      assert.equal(res.status, 201, res.text);
      const patch = await s.patch(`/api/v2/organizations/${res.body.id}/`, { description: 'changed' });
      assert.equal(patch.status, 200);
      const del = await s.delete(`/api/v2/organizations/${res.body.id}/`);
      assert.equal(del.status, 204);
    });

    it('reads need no token', async () => {
      assert.equal((await s.get('/api/v2/organizations/')).status, 200);
      assert.equal((await s.request('OPTIONS', '/api/v2/organizations/')).status, 200);
    });

    it('a missing token → 403', async () => {
      const before = await orgCount();
      const res = await s.post('/api/v2/organizations/', { name: 'CSRF-missing' }, { csrf: false });
      assert.deepEqual([res.status, res.body], [403, { detail: 'CSRF Failed: CSRF token missing.' }]);
      assert.equal(await orgCount(), before);
    });

    it('a wrong token → 403', async () => {
      const res = await s.post('/api/v2/organizations/', { name: 'CSRF-wrong' }, { csrf: 'x'.repeat(64) });
      assert.deepEqual([res.status, res.body], [403, { detail: 'CSRF Failed: CSRF token incorrect.' }]);
      const patch = await s.patch('/api/v2/organizations/1/', { description: 'x' }, { csrf: 'short' });
      assert.equal(patch.status, 403);
      const del = await s.delete('/api/v2/organizations/1/', { csrf: false });
      assert.equal(del.status, 403);
    });

    it('a token without the cookie → 403', async () => {
      const token = s.cookies.get('csrftoken')!;
      const res = await t.post('/api/v2/organizations/', { name: 'CSRF-nocookie' }, {
        as: null,
        headers: { cookie: `svc_sessionid=${s.cookies.get('svc_sessionid')}`, 'x-csrftoken': token, origin: trusted },
      });
      assert.deepEqual([res.status, res.body], [403, { detail: 'CSRF Failed: CSRF cookie not set.' }]);
    });

    it('an untrusted Origin → 403', async () => {
      const res = await s.post('/api/v2/organizations/', { name: 'CSRF-origin' }, { origin: 'https://evil.example' });
      assert.equal(res.status, 403);
      assert.equal(res.body.detail, 'CSRF Failed: Origin checking failed - https://evil.example does not match any trusted origins.');
      const nullOrigin = await s.post('/api/v2/organizations/', { name: 'CSRF-origin' }, { origin: 'null' });
      assert.equal(nullOrigin.status, 403);
    });

    it('without Origin, the Referer must be trusted', async () => {
      const none = await s.post('/api/v2/organizations/', { name: 'CSRF-referer' }, { origin: false });
      assert.deepEqual([none.status, none.body], [403, { detail: 'CSRF Failed: Referer checking failed - no Referer.' }]);
      const evil = await s.post('/api/v2/organizations/', { name: 'CSRF-referer' }, { origin: false, headers: { referer: 'https://evil.example/page' } });
      assert.equal(evil.status, 403);
      assert.match(evil.body.detail, /^CSRF Failed: Referer checking failed - https:\/\/evil\.example\/page does not match any trusted origins\.$/);
      const ok = await s.post('/api/v2/organizations/', { name: 'CSRF-referer' }, { origin: false, headers: { referer: `${trusted}/api/v2/organizations/` } });
      assert.equal(ok.status, 201, ok.text);
    });

    it('the origin the request was sent to is trusted too', async () => {
      // Injected requests carry Host: localhost:80.
      const res = await s.post('/api/v2/organizations/', { name: 'CSRF-same-origin' }, { origin: 'http://localhost' });
      assert.equal(res.status, 201, res.text);
      const otherScheme = await s.post('/api/v2/organizations/', { name: 'CSRF-other-scheme' }, { origin: 'https://localhost' });
      assert.equal(otherScheme.status, t.env.csrfTrustedOrigins.includes('https://localhost') ? 201 : 403);
    });

    it('trusted origins may name every subdomain with *.', () => {
      const services = { ...t.services, env: { ...t.env, csrfTrustedOrigins: ['https://*.example.com', 'http://drover.test:8013'] } };
      const request = { headers: { host: 'internal:80' }, protocol: 'http' } as unknown as FastifyRequest;
      const trustedBy = (origin: string) => originTrusted(services, request, origin);
      assert.ok(trustedBy('https://a.example.com'));
      assert.ok(trustedBy('https://a.b.example.com'));
      assert.ok(!trustedBy('https://example.com.evil.test'));
      assert.ok(!trustedBy('http://a.example.com'));
      assert.ok(!trustedBy('https://evilexample.com'));
      assert.ok(trustedBy('http://drover.test:8013'));
      assert.ok(!trustedBy('http://drover.test:8014'));
      assert.ok(trustedBy('http://internal'));
      assert.ok(!trustedBy('not a url'));
    });

    it('basic authentication is not subject to CSRF', async () => {
      const res = await t.post('/api/v2/organizations/', { name: 'CSRF-basic' }, { headers: { cookie: `csrftoken=${'a'.repeat(64)}`, origin: 'https://evil.example' } });
      assert.equal(res.status, 201, res.text);
      // Basic credentials win over a session cookie sent along.
      const both = await t.post('/api/v2/organizations/', { name: 'CSRF-basic-and-session' }, {
        headers: { cookie: cookieHeader({ svc_sessionid: s.cookies.get('svc_sessionid')!, csrftoken: s.cookies.get('csrftoken')! }) },
      });
      assert.equal(both.status, 201, both.text);
    });

    it('login: a sent token must match the cookie, and a cross-site Origin is refused', async () => {
      const body = { username: 'alice', password: alice.password };
      const wrong = await t.post('/api/login/', body, { as: null, headers: { cookie: `csrftoken=${'a'.repeat(64)}`, 'x-csrftoken': 'b'.repeat(64) } });
      assert.deepEqual([wrong.status, wrong.body], [403, { detail: 'CSRF Failed: CSRF token incorrect.' }]);
      const right = await t.post('/api/login/', body, { as: null, headers: { cookie: `csrftoken=${'a'.repeat(64)}`, 'x-csrftoken': 'a'.repeat(64) } });
      assert.equal(right.status, 200);
      const headerOnly = await t.post('/api/login/', body, { as: null, headers: { 'x-csrftoken': 'b'.repeat(64) } });
      assert.equal(headerOnly.status, 200);
      const crossSite = await t.post('/api/login/', body, { as: null, headers: { origin: 'https://evil.example' } });
      assert.equal(crossSite.status, 403);
      const formToken = await t.request('POST', '/api/login/', {
        as: null,
        headers: { ...FORM, cookie: `csrftoken=${'a'.repeat(64)}` },
        payload: form({ ...body, csrfmiddlewaretoken: 'c'.repeat(64) }),
      });
      assert.equal(formToken.status, 403);
    });

    it('the awx CLI flow: GET /api/, form login with X-CSRFToken and Referer, then writes', async () => {
      const root = await t.get('/api/', { as: null });
      const csrf = setCookies(root).get('csrftoken')!.value!;
      const login = await t.request('POST', '/api/login/', {
        as: null,
        headers: { ...FORM, cookie: `csrftoken=${csrf}`, 'x-csrftoken': csrf, referer: 'http://localhost/api/login/' },
        payload: form({ username: ADMIN.username, password: ADMIN.password, next: '/api/' }),
      });
      assert.equal(login.status, 302, login.text);
      assert.equal(login.headers.location, '/api/');
      assert.equal(login.headers['x-api-session-cookie-name'], 'svc_sessionid');
      const jar = { svc_sessionid: setCookies(login).get('svc_sessionid')!.value!, csrftoken: setCookies(login).get('csrftoken')!.value! };
      const me = await t.get('/api/v2/me/', { as: null, headers: { cookie: cookieHeader(jar) } });
      assert.equal(me.body.results[0].username, 'admin');
      const write = await t.post('/api/v2/organizations/', { name: 'CLI-org' }, {
        as: null,
        headers: { cookie: cookieHeader(jar), 'x-csrftoken': jar.csrftoken, referer: 'http://localhost/api/v2/organizations/' },
      });
      assert.equal(write.status, 201, write.text);
    });

    it('a logged-in browser re-posting the login form passes the full check', async () => {
      const body = form({ username: 'alice', password: alice.password, csrfmiddlewaretoken: s.cookies.get('csrftoken')! });
      const res = await s.request('POST', '/api/login/', { payload: body, headers: FORM, csrf: false });
      assert.equal(res.status, 302, res.text);
      const withoutToken = await t.login(alice);
      const refused = await withoutToken.request('POST', '/api/login/', { payload: form({ username: 'alice', password: alice.password }), headers: FORM, csrf: false });
      assert.equal(refused.status, 403);
    });
  });

  describe('logout', () => {
    it('ends the session and clears the cookies; the old cookie then answers 401', async () => {
      const s = await t.login(alice);
      const key = s.cookies.get('svc_sessionid')!;
      const res = await s.post('/api/logout/');
      assert.equal(res.status, 204, res.text);
      assert.equal(setCookies(res).get('svc_sessionid')?.value, null);
      assert.equal(setCookies(res).get('csrftoken')?.value, null);
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM sessions WHERE key_hash = $1', [sha256(key)])).length, 0);
      const after = await t.get('/api/v2/me/', { as: null, headers: { cookie: `svc_sessionid=${key}` } });
      assert.equal(after.status, 401);
      const [event] = (await auditRows('auth.logout', 'alice')).slice(-1);
      assert.equal(event.outcome, 'success');
      assert.equal(event.actor_id, alice.id);
      assert.equal(event.auth_method, 'session');
    });

    it('needs the CSRF token like any write', async () => {
      const s = await t.login(alice);
      const res = await s.post('/api/logout/', undefined, { csrf: false });
      assert.equal(res.status, 403);
      assert.equal((await s.get('/api/v2/me/')).status, 200);
    });

    it('GET does not log out; a logout without a session is harmless; next redirects', async () => {
      const s = await t.login(alice);
      assert.equal((await s.get('/api/logout/')).status, 200);
      assert.equal((await s.get('/api/v2/me/')).status, 200);
      assert.equal((await t.post('/api/logout/', undefined, { as: null })).status, 204);
      const res = await s.post('/api/logout/?next=/api/login/');
      assert.equal(res.status, 302);
      assert.equal(res.headers.location, '/api/login/');
      const evil = await t.post('/api/logout/?next=//evil.example/', undefined, { as: null });
      assert.equal(evil.status, 204);
    });
  });

  describe('expiry', () => {
    it('a session idle for SESSION_COOKIE_AGE answers 401 and is deleted', async () => {
      const s = await t.login(alice);
      const key = s.cookies.get('svc_sessionid')!;
      await t.db.query<AnyRow>(`UPDATE sessions SET last_activity = now() - interval '1801 seconds', expires = now() - interval '1 second' WHERE key_hash = $1`, [sha256(key)]);
      const res = await s.get('/api/v2/me/');
      assert.equal(res.status, 401);
      assert.equal(setCookies(res).get('svc_sessionid')?.value, null, 'the cookie is cleared');
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM sessions WHERE key_hash = $1', [sha256(key)])).length, 0);
      const [event] = (await auditRows('auth.session_expired', 'alice')).slice(-1);
      assert.equal(event.actor_id, alice.id);
    });

    it('every request slides the expiry', async () => {
      const s = await t.login(alice);
      const hash = sha256(s.cookies.get('svc_sessionid')!);
      // Logged in long ago, idle for most of SESSION_COOKIE_AGE: still valid, and renewed.
      await t.db.query<AnyRow>(
        `UPDATE sessions SET created = now() - interval '3 hours', last_activity = now() - interval '1700 seconds', expires = now() + interval '100 seconds' WHERE key_hash = $1`,
        [hash],
      );
      const res = await s.get('/api/v2/me/');
      assert.equal(res.status, 200);
      assert.ok(cookieAttributes(res, 'svc_sessionid').includes('max-age=1800'), 'the cookie is sent again');
      const [row] = await t.db.query<AnyRow>(
        `SELECT extract(epoch FROM now() - last_activity)::float8 AS idle, extract(epoch FROM expires - now())::float8 AS left FROM sessions WHERE key_hash = $1`,
        [hash],
      );
      assert.ok(row.idle < 5, `idle ${row.idle}`);
      assert.ok(row.left > 1790 && row.left <= 1800, `left ${row.left}`);
    });

    it('SESSION_COOKIE_AGE is read at request time', async () => {
      const s = await t.login(alice);
      const hash = sha256(s.cookies.get('svc_sessionid')!);
      assert.equal((await t.patch('/api/v2/settings/authentication/', { SESSION_COOKIE_AGE: 60 })).status, 200);
      try {
        await t.db.query<AnyRow>(`UPDATE sessions SET last_activity = now() - interval '50 seconds' WHERE key_hash = $1`, [hash]);
        const alive = await s.get('/api/v2/me/');
        assert.equal(alive.status, 200);
        assert.equal(alive.headers['session-timeout'], '60');
        assert.ok(cookieAttributes(alive, 'svc_sessionid').includes('max-age=60'));
        const [row] = await t.db.query<AnyRow>(`SELECT extract(epoch FROM expires - now())::float8 AS left FROM sessions WHERE key_hash = $1`, [hash]);
        assert.ok(row.left > 50 && row.left <= 60, `left ${row.left}`);
        // Idle 61 s with a 60 s age: over, even though the stored expiry was set under the old age.
        await t.db.query<AnyRow>(`UPDATE sessions SET last_activity = now() - interval '61 seconds', expires = now() + interval '1000 seconds' WHERE key_hash = $1`, [hash]);
        assert.equal((await s.get('/api/v2/me/')).status, 401);
      } finally {
        assert.equal((await t.patch('/api/v2/settings/authentication/', { SESSION_COOKIE_AGE: 1800 })).status, 200);
      }
    });

    it('a deactivated user loses the session', async () => {
      const bob = await t.createUser('bob-inactive');
      const s = await t.login(bob);
      await t.db.query<AnyRow>('UPDATE users SET is_active = false WHERE id = $1', [bob.id]);
      assert.equal((await s.get('/api/v2/me/')).status, 401);
    });

    it('expired sessions are cleaned up by cleanup_sessions', async () => {
      const carol = await t.createUser('carol-cleanup');
      await t.login(carol);
      await t.login(carol);
      await t.db.query<AnyRow>(`UPDATE sessions SET expires = now() - interval '1 second' WHERE id = (SELECT min(id) FROM sessions WHERE user_id = $1)`, [carol.id]);
      const deleted = await deleteExpiredSessions(t.db, t.services.settings);
      assert.ok(deleted >= 1);
      assert.equal((await sessionRows(carol.id)).length, 1);
    });

    it('drover manage cleanup_sessions prints how many it deleted', async () => {
      const env = await loadEnvConfig({ SVC_DATA_DIR: await mkdtemp(path.join(tmpdir(), 'drover-sessions-')), SVC_ADMIN_PASSWORD: 'x', SVC_NODE_NAME: t.env.nodeName });
      const services = await openServices(env);
      try {
        const [user] = await services.db.query<AnyRow>(`INSERT INTO users (username) VALUES ('dave') RETURNING id`);
        await services.db.query<AnyRow>(
          `INSERT INTO sessions (key_hash, user_id, expires) VALUES ('a', $1, now() - interval '1 minute'), ('b', $1, now() - interval '1 second'), ('c', $1, now() + interval '1 hour')`,
          [user.id],
        );
      } finally {
        await services.db.close();
      }
      const out: string[] = [];
      const code = await runManageCommand(env, ['cleanup_sessions'], { out: (l) => out.push(l), err: (l) => out.push(l) });
      assert.equal(code, 0);
      assert.deepEqual(out, ['Deleted 2 expired sessions.']);
    });
  });

  describe('SESSIONS_PER_USER', () => {
    it('ends the oldest sessions beyond the limit', async () => {
      const erin = await t.createUser('erin-limit');
      assert.equal((await t.patch('/api/v2/settings/authentication/', { SESSIONS_PER_USER: 2 })).status, 200);
      try {
        const first = await t.login(erin);
        const second = await t.login(erin);
        const third = await t.login(erin);
        assert.equal((await first.get('/api/v2/me/')).status, 401);
        assert.equal((await second.get('/api/v2/me/')).status, 200);
        assert.equal((await third.get('/api/v2/me/')).status, 200);
        assert.equal((await sessionRows(erin.id)).length, 2);
        const [event] = (await auditRows('auth.session_expired', 'erin-limit')).slice(-1);
        assert.equal(event.detail.reason, 'session_limit');
        await t.login(erin);
        assert.equal((await second.get('/api/v2/me/')).status, 401);
        assert.equal((await sessionRows(erin.id)).length, 2);
      } finally {
        assert.equal((await t.patch('/api/v2/settings/authentication/', { SESSIONS_PER_USER: -1 })).status, 200);
      }
      const many = await Promise.all([t.login(erin), t.login(erin), t.login(erin)]);
      assert.equal(many.length, 3);
      assert.ok((await sessionRows(erin.id)).length >= 4, 'unlimited again');
    });
  });

  describe('throttling', () => {
    const attempt = (username: string, password: string, address: string) =>
      t.post('/api/login/', { username, password }, { as: null, headers: { 'x-forwarded-for': address } });

    it('five failures for a username within a minute → 429 with Retry-After, even with the right password', async () => {
      const victim = await t.createUser('throttle-victim');
      for (let i = 0; i < 5; i++) assert.equal((await attempt('throttle-victim', 'guess', `10.2.0.${i}`)).status, 401);
      const res = await attempt('throttle-victim', victim.password, '10.2.1.1');
      assert.equal(res.status, 429);
      assert.match(res.body.detail, /^Too many failed login attempts\. Try again in \d+ seconds\.$/);
      const retry = Number(res.headers['retry-after']);
      assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
      assert.equal(res.body.detail, `Too many failed login attempts. Try again in ${retry} seconds.`);
      // Other users are not affected.
      assert.equal((await attempt('alice', alice.password, '10.2.1.1')).status, 200);
      // Once the failures are older than the window, the user may log in again.
      await t.db.query<AnyRow>(`UPDATE login_failures SET attempted = now() - interval '61 seconds' WHERE kind = 'username' AND key = 'throttle-victim'`);
      assert.equal((await attempt('throttle-victim', victim.password, '10.2.1.1')).status, 200);
      const throttled = await auditRows('auth.throttled', 'throttle-victim');
      assert.equal(throttled.length, 1);
      assert.equal(throttled[0].outcome, 'denied');
      assert.equal(throttled[0].detail.scope, 'username');
    });

    it('the username counter ignores case and is reset by a successful login', async () => {
      const frank = await t.createUser('frank-reset');
      for (let i = 0; i < 4; i++) assert.equal((await attempt(i % 2 ? 'FRANK-reset' : 'frank-reset', 'guess', '10.3.0.1')).status, 401);
      assert.equal((await attempt('frank-reset', frank.password, '10.3.0.1')).status, 200);
      for (let i = 0; i < 4; i++) assert.equal((await attempt('frank-reset', 'guess', '10.3.0.1')).status, 401);
      assert.equal((await attempt('frank-reset', frank.password, '10.3.0.1')).status, 200);
      for (let i = 0; i < 5; i++) await attempt('Frank-Reset', 'guess', '10.3.0.1');
      assert.equal((await attempt('frank-reset', frank.password, '10.3.0.1')).status, 429);
    });

    it('a burst of requests with new, right Basic credentials all pass: one check, no failures counted', async () => {
      const burst = await t.createUser('burst-basic');
      const authorization = `Basic ${Buffer.from(`burst-basic:${burst.password}`).toString('base64')}`;
      const answers = await Promise.all(Array.from({ length: 12 }, () => t.get('/api/v2/me/', { as: null, headers: { authorization, 'x-forwarded-for': '10.5.0.1' } })));
      assert.deepEqual(answers.map((r) => r.status), Array(12).fill(200));
      assert.equal((await t.db.query<AnyRow>(`SELECT count(*)::int AS n FROM login_failures WHERE key IN ('burst-basic', '10.5.0.1')`))[0].n, 0);
      assert.equal((await auditRows('auth.throttled', 'burst-basic')).length, 0);
    });

    it('an address that fails for many usernames is throttled', async () => {
      for (let i = 0; i < 20; i++) assert.equal((await attempt(`nobody-${i}`, 'guess', '10.4.0.1')).status, 401);
      const res = await attempt('alice', alice.password, '10.4.0.1');
      assert.equal(res.status, 429);
      assert.ok(Number(res.headers['retry-after']) >= 1);
      const [event] = (await auditRows('auth.throttled', 'alice')).slice(-1);
      assert.equal(event.detail.scope, 'address');
      assert.equal(event.remote_addr, '10.4.0.1');
      assert.equal((await attempt('alice', alice.password, '10.4.0.2')).status, 200);
    });
  });

  describe('audit events of logins', () => {
    it('records success and failure, never the password', async () => {
      const grace = await t.createUser('grace-audit');
      const start = (await t.db.query<AnyRow>('SELECT coalesce(max(id), 0) AS id FROM audit_events'))[0].id;
      await t.post('/api/login/', { username: 'grace-audit', password: 'Secret-Guess-1' }, { as: null, headers: { 'user-agent': 'audit-test/1.0', 'x-forwarded-for': '10.5.0.1' } });
      await t.post('/api/login/', { username: 'grace-audit', password: grace.password }, { as: null, headers: { 'user-agent': 'audit-test/1.0', 'x-forwarded-for': '10.5.0.1' } });
      const rows = await t.db.query<AnyRow>('SELECT * FROM audit_events WHERE id > $1 ORDER BY id', [start]);
      const failure = rows.find((r) => r.event_type === 'auth.login' && r.outcome === 'failure');
      const success = rows.find((r) => r.event_type === 'auth.login' && r.outcome === 'success');
      assert.ok(failure && success);
      assert.equal(failure.actor_username, 'grace-audit');
      assert.equal(failure.actor_id, null);
      assert.equal(failure.detail.reason, 'invalid_credentials');
      assert.equal(failure.remote_addr, '10.5.0.1');
      assert.equal(failure.user_agent, 'audit-test/1.0');
      assert.equal(success.actor_id, grace.id);
      assert.equal(success.actor_username, 'grace-audit');
      assert.equal(success.auth_method, 'session');
      assert.equal(success.target_type, 'user');
      assert.equal(success.target_id, grace.id);
      assert.equal(success.node, 'test-node');
      const everything = JSON.stringify(await t.db.query<AnyRow>('SELECT * FROM audit_events'));
      assert.ok(!everything.includes('Secret-Guess-1'));
      assert.ok(!everything.includes(grace.password));
    });
  });
});

describe('sessions with SESSION_COOKIE_SECURE true', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ SESSION_COOKIE_SECURE: 'true', CSRF_COOKIE_SECURE: 'true' });
  });
  after(() => t.close());

  const loginFrom = (remoteAddress: string, host: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/login/',
      remoteAddress,
      headers: { host, 'content-type': 'application/json', ...headers },
      payload: JSON.stringify({ username: ADMIN.username, password: ADMIN.password }),
    });

  it('refuses a login over plain HTTP from another machine, naming the HTTPS address', async () => {
    const cases: [string, string, Record<string, string>][] = [
      ['203.0.113.9', 'drover.example.com:8013', {}],
      ['203.0.113.9', 'drover.example.com:8013', { 'x-forwarded-proto': 'http' }],
      // A remote client naming localhost is still remote.
      ['203.0.113.9', 'localhost:8013', { 'sec-fetch-mode': 'cors' }],
      // A proxy on this machine forwarding a remote browser: the client is the forwarded one.
      ['127.0.0.1', 'localhost:8013', { 'x-forwarded-for': '198.51.100.7' }],
      // A proxy on this machine passing on the browser's own host name.
      ['127.0.0.1', 'drover.example.com', { 'sec-fetch-mode': 'cors' }],
      // A script on this machine (the awx CLI): its cookie jar sends Secure cookies over HTTPS only.
      ['127.0.0.1', 'localhost:8013', {}],
    ];
    for (const [remoteAddress, host, headers] of cases) {
      const res = await loginFrom(remoteAddress, host, headers);
      assert.equal(res.statusCode, 400, `${remoteAddress} ${host}`);
      const { detail } = JSON.parse(res.body);
      // The HTTPS port the service is reached at: 8043 on the embedded database, 443 beside a database server (as AWX).
      const port = t.services.env.httpsPort === 443 ? '' : `:${t.services.env.httpsPort}`;
      assert.ok(detail.includes(`use HTTPS (https://${host.replace(/:\d+$/, '')}${port}/)`), detail);
      assert.match(detail, /SESSION_COOKIE_SECURE=false/);
      assert.equal(setCookies({ headers: res.headers } as Response).get('svc_sessionid'), undefined);
    }
    const form = await t.app.inject({ method: 'POST', url: '/api/login/', remoteAddress: '203.0.113.9', headers: { host: 'drover.example.com', ...FORM }, payload: 'username=admin&password=x' });
    assert.equal(form.statusCode, 400);
    const [event] = await t.db.query<AnyRow>(`SELECT * FROM audit_events WHERE event_type = 'auth.login' ORDER BY id DESC LIMIT 1`);
    assert.equal(event.outcome, 'failure');
    assert.equal(event.detail.reason, 'insecure_transport');
    const page = await t.app.inject({ method: 'GET', url: '/api/login/', remoteAddress: '203.0.113.9', headers: { host: 'drover.example.com' } });
    assert.ok(page.body.includes('SESSION_COOKIE_SECURE'));
  });

  it('lets a browser on this machine log in over http://localhost, where browsers keep Secure cookies', async () => {
    for (const [remoteAddress, host] of [['127.0.0.1', 'localhost:8013'], ['::1', '[::1]:8013'], ['::ffff:127.0.0.1', '127.0.0.1:8013']]) {
      const res = await loginFrom(remoteAddress, host, { 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'same-origin' });
      assert.equal(res.statusCode, 200, `${remoteAddress} ${host}: ${res.body}`);
      const answer = { headers: res.headers } as Response;
      assert.ok(cookieAttributes(answer, 'svc_sessionid').includes('secure'), 'the cookie stays Secure');
      assert.ok(cookieAttributes(answer, 'csrftoken').includes('secure'));
      const session = setCookies(answer).get('svc_sessionid')?.value;
      const me = await t.app.inject({ method: 'GET', url: '/api/v2/me/', remoteAddress, headers: { host, cookie: `svc_sessionid=${session}` } });
      assert.equal(me.statusCode, 200);
      assert.equal(JSON.parse(me.body).results[0].username, ADMIN.username);
    }
    const page = await t.app.inject({ method: 'GET', url: '/api/login/', remoteAddress: '127.0.0.1', headers: { host: 'localhost:8013', 'sec-fetch-mode': 'navigate' } });
    assert.ok(!page.body.includes('SESSION_COOKIE_SECURE'), 'no warning on the login form for a loopback browser');
  });

  it('over HTTPS (X-Forwarded-Proto) the cookies are Secure', async () => {
    const s = await t.login(ADMIN, { https: true });
    const res = s.loginResponse;
    const session = cookieAttributes(res, 'svc_sessionid');
    assert.ok(session.includes('secure'));
    assert.ok(session.includes('httponly'));
    assert.ok(session.includes('samesite=lax'));
    const csrf = cookieAttributes(res, 'csrftoken');
    assert.ok(csrf.includes('secure'));
    assert.ok(!csrf.includes('httponly'));
    assert.equal((await s.get('/api/v2/me/')).status, 200);
    const root = await t.get('/api/', { as: null, headers: { 'x-forwarded-proto': 'https' } });
    assert.ok(cookieAttributes(root, 'csrftoken').includes('secure'));
    const page = await t.get('/api/login/', { as: null, headers: { 'x-forwarded-proto': 'https' } });
    assert.ok(!page.text.includes('SESSION_COOKIE_SECURE'));
  });
});
