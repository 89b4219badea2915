import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newTeam, type TestApp } from './helpers/app.ts';

/**
 * Create and update bodies are checked against the resource's declared fields before anything is
 * stored, and refused as AWX's serializers refuse them: 400 with {field: ["message"]} in Django REST
 * framework's words. Keys the resource does not declare are ignored, as AWX ignores them.
 */
describe('request bodies', () => {
  let t: TestApp;
  let orgId: number;

  before(async () => {
    t = await createTestApp();
    orgId = (await newOrg(t, { name: 'Bodies' })).id;
  });
  after(() => t.close());

  const count = async (sql: string, params: unknown[]) => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n ${sql}`, params))[0]!.n;

  it('a create with a value of the wrong type is refused with the field and its message, and nothing is stored', async () => {
    const res = await t.post('/api/v2/teams/', { name: 42, organization: orgId });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { name: ['Not a valid string.'] });

    const org = await t.post('/api/v2/organizations/', { name: 'Too many', max_hosts: 'many' });
    assert.equal(org.status, 400);
    assert.deepEqual(org.body, { max_hosts: ['A valid integer is required.'] });
    assert.equal(await count('FROM organizations WHERE name = $1', ['Too many']), 0);
  });

  it('every problem of a create is told at once, a missing required field included', async () => {
    const res = await t.post('/api/v2/organizations/', { description: ['not', 'text'], max_hosts: -1 });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      name: ['This field is required.'],
      description: ['Not a valid string.'],
      max_hosts: ['Ensure this value is greater than or equal to 0.'],
    });
  });

  it('an update (PATCH) with a value of the wrong type is refused and the object is left as it was', async () => {
    const team = await newTeam(t, orgId, { name: 'Unchanged', description: 'as created' });
    const res = await t.patch(`/api/v2/teams/${team.id}/`, { description: { text: 'x' } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { description: ['Not a valid string.'] });

    const org = await t.patch(`/api/v2/organizations/${orgId}/`, { max_hosts: 1.5, description: 'not stored either' });
    assert.equal(org.status, 400);
    assert.deepEqual(org.body, { max_hosts: ['A valid integer is required.'] });

    const [storedTeam] = await t.db.query<{ description: string }>('SELECT description FROM teams WHERE id = $1', [team.id]);
    assert.equal(storedTeam!.description, 'as created');
    const [storedOrg] = await t.db.query<{ description: string; max_hosts: number }>('SELECT description, max_hosts FROM organizations WHERE id = $1', [orgId]);
    assert.deepEqual(storedOrg, { description: '', max_hosts: 0 });
  });

  it('keys the resource does not declare are ignored, on create and on update', async () => {
    const created = await t.post('/api/v2/teams/', { name: 'With extras', organization: orgId, colour: 'blue', id: 999999 });
    assert.equal(created.status, 201);
    assert.equal(created.body.name, 'With extras');
    assert.ok(!('colour' in created.body));
    assert.notEqual(created.body.id, 999999, 'a read-only key is ignored too');

    const patched = await t.patch(`/api/v2/teams/${created.body.id}/`, { description: 'changed', colour: 'red' });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.description, 'changed');
    assert.ok(!('colour' in patched.body));
  });

  it('a body that is not an object is refused as a whole', async () => {
    const res = await t.post('/api/v2/teams/', ['Platform']);
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { detail: 'Invalid data. Expected a dictionary, but got list.' });
    assert.equal(await count('FROM teams WHERE name = $1', ['Platform']), 0);
  });
});
