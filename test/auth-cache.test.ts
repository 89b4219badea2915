import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';

// Basic authentication remembers credentials that verified (src/auth/basic.ts); each case first
// uses the credentials successfully, so that they are remembered, then checks the change is seen
// by the very next request.
describe('cache of verified Basic credentials', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const status = async (who: { username: string; password: string }) => (await t.get('/api/v2/me/', { as: who })).status;

  it('a changed password is refused right after the change, the new one accepted', async () => {
    const user = await t.createUser('cache-rotated');
    assert.equal(await status(user), 200);
    assert.equal(await status(user), 200);
    assert.equal((await t.patch(`/api/v2/users/${user.id}/`, { password: 'cache-rotated-new' })).status, 200);
    assert.equal(await status(user), 401);
    assert.equal(await status({ username: user.username, password: 'cache-rotated-new' }), 200);
  });

  it('a password changed back to an earlier one works again, and the other one not', async () => {
    const user = await t.createUser('cache-back');
    const other = { username: user.username, password: 'cache-back-other' };
    assert.equal(await status(user), 200);
    assert.equal((await t.patch(`/api/v2/users/${user.id}/`, { password: other.password })).status, 200);
    assert.equal(await status(other), 200);
    assert.equal((await t.patch(`/api/v2/users/${user.id}/`, { password: user.password })).status, 200);
    assert.equal(await status(other), 401);
    assert.equal(await status(user), 200);
  });

  it('a user changing his own password is refused with the old one at once', async () => {
    const user = await t.createUser('cache-self');
    assert.equal((await t.patch(`/api/v2/users/${user.id}/`, { password: 'cache-self-new' }, { as: user })).status, 200);
    assert.equal(await status(user), 401);
    assert.equal(await status({ username: user.username, password: 'cache-self-new' }), 200);
  });

  it('a deactivated user is refused right away, and accepted again once active', async () => {
    const user = await t.createUser('cache-inactive');
    assert.equal(await status(user), 200);
    await t.db.query('UPDATE users SET is_active = false WHERE id = $1', [user.id]);
    assert.equal(await status(user), 401);
    await t.db.query('UPDATE users SET is_active = true WHERE id = $1', [user.id]);
    assert.equal(await status(user), 200);
  });

  it('a deleted user is refused, also when a new user takes the name with another password', async () => {
    const user = await t.createUser('cache-deleted');
    assert.equal(await status(user), 200);
    assert.equal((await t.delete(`/api/v2/users/${user.id}/`)).status, 204);
    assert.equal(await status(user), 401);
    const successor = await t.post('/api/v2/users/', { username: user.username, password: 'cache-successor' });
    assert.equal(successor.status, 201);
    assert.equal(await status(user), 401);
    assert.equal(await status({ username: user.username, password: 'cache-successor' }), 200);
  });

  it('a change of superuser status applies to the next request', async () => {
    const user = await t.createUser('cache-promoted');
    assert.equal((await t.get('/api/v2/settings/system/', { as: user })).status, 403);
    assert.equal((await t.patch(`/api/v2/users/${user.id}/`, { is_superuser: true })).status, 200);
    assert.equal((await t.get('/api/v2/settings/system/', { as: user })).status, 200);
    assert.equal((await t.patch(`/api/v2/users/${user.id}/`, { is_superuser: false })).status, 200);
    assert.equal((await t.get('/api/v2/settings/system/', { as: user })).status, 403);
  });
});
