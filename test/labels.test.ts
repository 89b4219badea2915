import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, roleMatrix, type TestApp, type User } from './helpers/app.ts';

describe('labels', () => {
  let t: TestApp;
  let orgA: number;
  let orgB: number;
  let member: User;
  let admin: User;
  let outsider: User;

  before(async () => {
    t = await createTestApp();
    orgA = (await newOrg(t, { name: 'A' })).id;
    orgB = (await newOrg(t)).id;
    ({ member, admin, nobody: outsider } = await roleMatrix(t, `/api/v2/organizations/${orgA}/`, { member: 'member_role', admin: 'admin_role' }));
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
    const org = (await newOrg(t)).id;
    const label = (await t.post('/api/v2/labels/', { name: 'gone', organization: org })).body.id;
    assert.equal((await t.delete(`/api/v2/organizations/${org}/`)).status, 204);
    assert.equal((await t.get(`/api/v2/labels/${label}/`)).status, 404);
  });
});
