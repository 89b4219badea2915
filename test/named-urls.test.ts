import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newTeam, newUser, type TestApp } from './helpers/app.ts';

describe('named URLs', () => {
  let t: TestApp;
  let defaultId: number;
  let opsId: number;
  let spacedOrgId: number;
  let spacedTeamId: number;
  let numericOrgId: number;
  let userId: number;
  let oddOrgId: number;

  before(async () => {
    t = await createTestApp();
    defaultId = (await t.get('/api/v2/organizations/?name=Default')).body.results[0].id;
    userId = (await newUser(t, { username: 'jane.doe@corp' })).id;
    opsId = (await newTeam(t, defaultId, { name: 'Ops', members: [userId] })).id;
    spacedOrgId = (await newOrg(t, { name: 'Big Org & Co' })).id;
    spacedTeamId = (await newTeam(t, spacedOrgId, { name: 'Night Shift' })).id;
    await newTeam(t, spacedOrgId, { name: 'Ops' });
    numericOrgId = (await newOrg(t, { name: '424242' })).id;
    oddOrgId = (await newOrg(t, { name: 'a/b?c#d%e' })).id;
  });
  after(() => t.close());

  it('resolves an organization by name', async () => {
    const res = await t.get('/api/v2/organizations/Default/');
    assert.equal(res.status, 200);
    assert.equal(res.body.id, defaultId);
    assert.equal(res.body.url, `/api/v2/organizations/${defaultId}/`);
  });

  it('resolves a user by username', async () => {
    const admin = await t.get('/api/v2/users/admin/');
    assert.equal(admin.status, 200);
    assert.equal(admin.body.username, 'admin');
    const jane = await t.get('/api/v2/users/jane.doe@corp/');
    assert.equal(jane.status, 200);
    assert.equal(jane.body.id, userId);
  });

  it('resolves a team by name++organization', async () => {
    const res = await t.get('/api/v2/teams/Ops++Default/');
    assert.equal(res.status, 200);
    assert.equal(res.body.id, opsId);
    const other = await t.get('/api/v2/teams/Ops++Big%20Org%20%26%20Co/');
    assert.equal(other.status, 200);
    assert.notEqual(other.body.id, opsId);
    assert.equal(other.body.summary_fields.organization.name, 'Big Org & Co');
  });

  it('decodes URL-encoded names with spaces', async () => {
    const org = await t.get('/api/v2/organizations/Big%20Org%20%26%20Co/');
    assert.equal(org.status, 200);
    assert.equal(org.body.id, spacedOrgId);
    const team = await t.get('/api/v2/teams/Night%20Shift++Big%20Org%20%26%20Co/');
    assert.equal(team.status, 200);
    assert.equal(team.body.id, spacedTeamId);
  });

  it('works in the middle of a path', async () => {
    const res = await t.get('/api/v2/teams/Ops++Default/users/');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.results.map((u: any) => u.username), ['jane.doe@corp']);
    const teams = await t.get('/api/v2/organizations/Big%20Org%20%26%20Co/teams/?order_by=name');
    assert.deepEqual(teams.body.results.map((r: any) => r.name), ['Night Shift', 'Ops']);
    const activity = await t.get('/api/v2/organizations/Default/activity_stream/');
    assert.equal(activity.status, 200);
    assert.ok(activity.body.count >= 1);
  });

  it('works for writes too', async () => {
    const patched = await t.patch('/api/v2/teams/Night%20Shift++Big%20Org%20%26%20Co/', { description: 'after dark' });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.id, spacedTeamId);
    assert.equal((await t.get(`/api/v2/teams/${spacedTeamId}/`)).body.description, 'after dark');
    const attach = await t.post('/api/v2/teams/Night%20Shift++Big%20Org%20%26%20Co/users/', { id: userId });
    assert.equal(attach.status, 204);
    assert.equal((await t.get(`/api/v2/teams/${spacedTeamId}/users/`)).body.count, 1);
  });

  it('related.named_url values resolve to the same object', async () => {
    for (const [list, id] of [
      ['organizations', defaultId],
      ['organizations', spacedOrgId],
      ['organizations', oddOrgId],
      ['teams', opsId],
      ['teams', spacedTeamId],
      ['users', userId],
    ] as const) {
      const detail = await t.get(`/api/v2/${list}/${id}/`);
      const named = detail.body.related.named_url;
      assert.equal(typeof named, 'string', `${list} ${id}`);
      assert.ok(named.startsWith(`/api/v2/${list}/`));
      const res = await t.get(named);
      assert.equal(res.status, 200, named);
      assert.equal(res.body.id, id, named);
    }
    assert.equal((await t.get(`/api/v2/teams/${opsId}/`)).body.related.named_url, '/api/v2/teams/Ops++Default/');
    assert.equal((await t.get(`/api/v2/users/${userId}/`)).body.related.named_url, '/api/v2/users/jane.doe%40corp/');
    assert.equal((await t.get(`/api/v2/teams/${spacedTeamId}/`)).body.related.named_url, '/api/v2/teams/Night%20Shift++Big%20Org%20%26%20Co/');
    assert.equal((await t.get(`/api/v2/organizations/${oddOrgId}/`)).body.related.named_url, '/api/v2/organizations/a%2Fb%3Fc%23d%25e/');
  });

  it('a numeric name still resolves by id first and by name otherwise', async () => {
    const byName = await t.get('/api/v2/organizations/424242/');
    assert.equal(byName.status, 200);
    assert.equal(byName.body.id, numericOrgId);
    const byId = await t.get(`/api/v2/organizations/${defaultId}/`);
    assert.equal(byId.body.name, 'Default');
  });

  it('unknown names are 404', async () => {
    for (const url of [
      '/api/v2/organizations/Nope/',
      '/api/v2/users/nobody/',
      '/api/v2/teams/Ops++Nope/',
      '/api/v2/teams/Nope++Default/',
      '/api/v2/teams/Ops/',
      '/api/v2/teams/Ops++Default++Extra/',
      '/api/v2/teams/Nope++Default/users/',
      '/api/v2/organizations/99999999999999/',
    ]) {
      const res = await t.get(url);
      assert.equal(res.status, 404, url);
      assert.deepEqual(res.body, { detail: 'Not found.' }, url);
    }
  });
});
