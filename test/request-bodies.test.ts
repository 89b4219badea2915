import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newInventory, newOrg, newTeam, newUser, newWorkflow, type TestApp } from './helpers/app.ts';

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

/**
 * Action routes check their body with their schema (src/api/route-schemas.ts): a body of the wrong
 * shape answers 400 with AWX's message and changes nothing, and only to a caller who may post
 * there; anyone else gets the refusal they would get for any body, before the body is looked at.
 */
describe('action bodies', () => {
  let t: TestApp;
  let ids: Record<string, number>;
  let member: Awaited<ReturnType<typeof newUser>>;
  let otherAdmin: Awaited<ReturnType<typeof newUser>>;

  before(async () => {
    t = await createTestApp();
    const org = await newOrg(t, { name: 'Action bodies' });
    const otherOrg = await newOrg(t, { name: 'Elsewhere' });
    member = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: otherOrg });
    const workflow = await newWorkflow(t, org, { nodes: { first: {}, second: {} } });
    const cleanup = (await t.get('/api/v2/system_job_templates/?job_type=cleanup_jobs')).body.results[0];
    ids = {
      team: (await newTeam(t, org)).id,
      org: org.id,
      workflow: workflow.id,
      first: workflow.nodes.first,
      second: workflow.nodes.second,
      inventory: (await newInventory(t, org)).id,
      cleanup: cleanup.id,
    };
  });
  after(() => t.close());

  const countOf = async (url: string) => {
    const res = await t.get(url);
    assert.equal(res.status, 200, res.text);
    return res.body.count as number;
  };

  interface Case {
    route: string;
    method?: 'POST' | 'PATCH';
    url: () => string;
    body: unknown;
    answer: Record<string, unknown>;
    /** What the route would change, read as a superuser. */
    state: () => Promise<unknown>;
    /** What a caller who may not post here gets (403, or 404 when the object is hidden from them). */
    member: number;
    otherAdmin: number;
  }

  const cases: Case[] = [
    {
      route: 'teams/{id}/users/ (attach)',
      url: () => `/api/v2/teams/${ids.team}/users/`,
      body: { id: 'alice' },
      answer: { id: ['A valid integer is required.'] },
      state: () => countOf(`/api/v2/teams/${ids.team}/users/`),
      member: 403,
      otherAdmin: 403,
    },
    {
      route: 'organizations/{id}/instance_groups/ (attach)',
      url: () => `/api/v2/organizations/${ids.org}/instance_groups/`,
      body: { id: true },
      answer: { id: ['A valid integer is required.'] },
      state: () => countOf(`/api/v2/organizations/${ids.org}/instance_groups/`),
      member: 403,
      otherAdmin: 403,
    },
    {
      route: 'workflow_job_template_nodes/{id}/success_nodes/ (link)',
      url: () => `/api/v2/workflow_job_template_nodes/${ids.first}/success_nodes/`,
      body: () => ({ id: ids.second, condition: 5 }),
      answer: { condition: ['Not a valid string.'] },
      state: () => countOf(`/api/v2/workflow_job_template_nodes/${ids.first}/success_nodes/`),
      member: 403,
      otherAdmin: 403,
    },
    {
      route: 'workflow_job_templates/{id}/launch/',
      url: () => `/api/v2/workflow_job_templates/${ids.workflow}/launch/`,
      body: ['extra_vars'],
      answer: { detail: 'Invalid data. Expected a dictionary, but got list.' },
      state: () => countOf(`/api/v2/workflow_jobs/?workflow_job_template=${ids.workflow}`),
      member: 403,
      otherAdmin: 403,
    },
    {
      route: 'inventories/{id}/ad_hoc_commands/',
      url: () => `/api/v2/inventories/${ids.inventory}/ad_hoc_commands/`,
      body: 'ping',
      answer: { detail: 'Invalid data. Expected a dictionary, but got str.' },
      state: () => countOf('/api/v2/ad_hoc_commands/'),
      member: 403,
      otherAdmin: 403,
    },
    {
      route: 'system_job_templates/{id}/launch/',
      url: () => `/api/v2/system_job_templates/${ids.cleanup}/launch/`,
      body: { extra_vars: [30] },
      answer: { extra_vars: ['Expected a dictionary of variables.'] },
      state: () => countOf('/api/v2/system_jobs/'),
      member: 403,
      otherAdmin: 403,
    },
    {
      route: 'settings/jobs/',
      method: 'PATCH',
      url: () => '/api/v2/settings/jobs/',
      body: [{ MAX_FORKS: 5 }],
      answer: { detail: 'Invalid data. Expected a dictionary, but got list.' },
      state: async () => (await t.get('/api/v2/settings/jobs/')).body,
      member: 403,
      otherAdmin: 403,
    },
  ];

  const send = (c: Case, as?: { username: string; password: string }) =>
    t.request(c.method ?? 'POST', c.url(), { body: typeof c.body === 'function' ? c.body() : c.body, ...(as && { as }) });

  for (const c of cases) {
    it(`${c.route}: a body of the wrong shape is refused with its message and changes nothing`, async () => {
      const before = await c.state();
      const res = await send(c);
      assert.deepEqual([res.status, res.body], [400, c.answer]);
      assert.deepEqual(await c.state(), before);
    });

    it(`${c.route}: a caller who may not post there is refused before the body is looked at`, async () => {
      const before = await c.state();
      const asMember = await send(c, member);
      assert.equal(asMember.status, c.member, asMember.text);
      const asOtherAdmin = await send(c, otherAdmin);
      assert.equal(asOtherAdmin.status, c.otherAdmin, asOtherAdmin.text);
      for (const res of [asMember, asOtherAdmin]) assert.notDeepEqual(res.body, c.answer, 'the body is not told about');
      assert.deepEqual(await c.state(), before);
    });
  }

  it('routes any user may post to refuse a body of the wrong shape with the field and its message', async () => {
    const preview = await t.post('/api/v2/schedules/preview/', { rrule: 5 }, { as: member });
    assert.deepEqual([preview.status, preview.body], [400, { rrule: ['Not a valid string.'] }]);
    const blank = await t.post('/api/v2/schedules/preview/', { rrule: ' ' }, { as: member });
    assert.deepEqual([blank.status, blank.body], [400, { rrule: ['This field may not be blank.'] }]);
    const compare = await t.post('/api/v2/drift_detections/compare/', { snapshot_a: true, snapshot_b: '7' }, { as: member });
    assert.deepEqual([compare.status, compare.body], [400, { snapshot_a: ['Incorrect type. Expected pk value, received bool.'] }]);
    const missing = await t.post('/api/v2/drift_detections/compare/', {}, { as: member });
    assert.deepEqual([missing.status, missing.body], [400, { snapshot_a: ['This field is required.'], snapshot_b: ['This field is required.'] }]);
  });

  it('unknown keys are ignored: an attach with extra keys attaches', async () => {
    const user = await newUser(t);
    const res = await t.post(`/api/v2/teams/${ids.team}/users/`, { id: String(user.id), colour: 'blue' });
    assert.equal(res.status, 204, res.text);
    const members = (await t.get(`/api/v2/teams/${ids.team}/users/`)).body.results.map((u: { id: number }) => u.id);
    assert.ok(members.includes(user.id));
  });
});
