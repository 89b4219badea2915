import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

describe('authentication hardening', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({ SESSION_COOKIE_SECURE: 'true' })));
  after(() => t.close());

  const loginFrom = (remoteAddress: string, headers: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: '/api/login/',
      remoteAddress,
      headers: { 'content-type': 'application/json', ...headers },
      payload: JSON.stringify({ username: 'admin', password: 'admin-password' }),
    });

  it('believes X-Forwarded-Proto only from a trusted proxy', async () => {
    const viaProxy = await loginFrom('127.0.0.1', { 'x-forwarded-proto': 'https' });
    assert.equal(viaProxy.statusCode, 200);
    const spoofed = await loginFrom('203.0.113.9', { 'x-forwarded-proto': 'https' });
    assert.equal(spoofed.statusCode, 400);
    assert.match(JSON.parse(spoofed.body).detail, /HTTPS|SESSION_COOKIE_SECURE/);
  });

  it('records the connection address, not one a direct client claims', async () => {
    await loginFrom('203.0.113.9', { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.1' });
    const [event] = await t.db.query<AnyRow>(`SELECT remote_addr FROM audit_events WHERE event_type = 'auth.login' ORDER BY id DESC LIMIT 1`);
    assert.equal(event.remote_addr, '203.0.113.9');
  });

  it('a password change ends every session of the user', async () => {
    const user = await t.createUser('rotator');
    const session = await t.login(user, { https: true });
    assert.equal((await session.get('/api/v2/me/')).status, 200);
    const changed = await t.patch(`/api/v2/users/${user.id}/`, { password: 'a-new-password' });
    assert.equal(changed.status, 200);
    assert.equal((await session.get('/api/v2/me/')).status, 401);
    const [{ count }] = await t.db.query<AnyRow>('SELECT count(*)::int AS count FROM sessions WHERE user_id = $1', [user.id]);
    assert.equal(count, 0);
    const [audit] = await t.db.query<AnyRow>(`SELECT detail FROM audit_events WHERE event_type = 'user.password_changed' AND target_id = $1`, [user.id]);
    assert.equal(audit.detail.sessions_ended, 1);
  });

  it('other changes keep the sessions', async () => {
    const user = await t.createUser('keeper');
    const session = await t.login(user, { https: true });
    assert.equal((await t.patch(`/api/v2/users/${user.id}/`, { first_name: 'Kay' })).status, 200);
    assert.equal((await session.get('/api/v2/me/')).status, 200);
  });

  it('an unknown username is refused like a wrong password', async () => {
    const unknown = await t.get('/api/v2/me/', { as: { username: 'nobody-here', password: 'x' } });
    const wrong = await t.get('/api/v2/me/', { as: { username: 'admin', password: 'wrong' } });
    assert.deepEqual([unknown.status, unknown.body], [wrong.status, wrong.body]);
  });
});
