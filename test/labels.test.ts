import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';

describe('labels', () => {
  let t: TestApp;
  let orgA: number;
  let orgB: number;
  let member: Awaited<ReturnType<TestApp['createUser']>>;
  let admin: Awaited<ReturnType<TestApp['createUser']>>;
  let outsider: Awaited<ReturnType<TestApp['createUser']>>;

  const grant = async (userId: number, orgId: number, roleField: string) => {
    const [role] = await t.db.query(`SELECT id FROM roles WHERE content_type = 'organization' AND object_id = $1 AND role_field = $2`, [orgId, roleField]);
    assert.equal((await t.post(`/api/v2/roles/${role.id}/users/`, { id: userId })).status, 204);
  };

  before(async () => {
    t = await createTestApp();
    orgA = (await t.post('/api/v2/organizations/', { name: 'A' })).body.id;
    orgB = (await t.post('/api/v2/organizations/', { name: 'B' })).body.id;
    member = await t.createUser('member');
    admin = await t.createUser('orgadmin');
    outsider = await t.createUser('outsider');
    await grant(member.id, orgA, 'member_role');
    await grant(admin.id, orgA, 'admin_role');
  });
  after(() => t.close());

  it('creates labels unique per organization', async () => {
    const res = await t.post('/api/v2/labels/', { name: 'prod', organization: orgA });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.type, 'label');
    assert.equal(res.body.url, `/api/v2/labels/${res.body.id}/`);
    assert.equal((await t.post('/api/v2/labels/', { name: 'prod', organization: orgB })).status, 201);
    const duplicate = await t.post('/api/v2/labels/', { name: 'prod', organization: orgA });
    assert.equal(duplicate.status, 400);
    assert.match(duplicate.body.__all__[0], /already exists/);
    assert.equal((await t.post('/api/v2/labels/', { name: '', organization: orgA })).status, 400);
    assert.equal((await t.post('/api/v2/labels/', { name: 'x' })).status, 400);
    assert.equal((await t.get('/api/v2/labels/prod++A/')).body.id, res.body.id);
  });

  it('lets organization members see and create labels, and only admins change them', async () => {
    const created = await t.post('/api/v2/labels/', { name: 'by-member', organization: orgA }, { as: member });
    assert.equal(created.status, 201, created.text);
    assert.equal((await t.post('/api/v2/labels/', { name: 'elsewhere', organization: orgB }, { as: member })).status, 403);
    const seen = (await t.get('/api/v2/labels/', { as: member })).body.results.map((l: any) => l.organization);
    assert.ok(seen.length >= 2 && seen.every((o: number) => o === orgA), JSON.stringify(seen));
    assert.equal((await t.get('/api/v2/labels/', { as: outsider })).body.count, 0);
    assert.equal((await t.get(`/api/v2/labels/${created.body.id}/`, { as: outsider })).status, 403);
    assert.equal((await t.patch(`/api/v2/labels/${created.body.id}/`, { name: 'renamed' }, { as: member })).status, 403);
    assert.equal((await t.patch(`/api/v2/labels/${created.body.id}/`, { name: 'renamed' }, { as: admin })).status, 200);
    assert.equal((await t.delete(`/api/v2/labels/${created.body.id}/`, { as: member })).status, 403);
    assert.equal((await t.delete(`/api/v2/labels/${created.body.id}/`, { as: admin })).status, 204);
    assert.equal((await t.db.query('SELECT count(*)::int AS n FROM labels WHERE id = $1', [created.body.id]))[0].n, 0);
  });

  it('goes with its organization', async () => {
    const org = (await t.post('/api/v2/organizations/', { name: 'Temp' })).body.id;
    const label = (await t.post('/api/v2/labels/', { name: 'gone', organization: org })).body.id;
    assert.equal((await t.delete(`/api/v2/organizations/${org}/`)).status, 204);
    assert.equal((await t.get(`/api/v2/labels/${label}/`)).status, 404);
  });
});
