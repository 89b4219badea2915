import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Compile } from 'typebox/compile';
import { createTestApp, newHost, newInventory, newOrg, newTeam, newUser, newWorkflow, type TestApp } from './helpers/app.ts';

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
 * A resource's create (POST), replace (PUT) and update (PATCH) bodies, and what its related lists
 * create, are checked by the route's body schema, made from the field declarations: it takes what
 * AWX's serializers take ("5" for an integer, "true" for a boolean, null for a text field) and
 * refuses the rest with the words the declarations use, every field's problem in one answer.
 */
describe('resource bodies checked by their schemas', () => {
  let t: TestApp;
  let org: { id: number };
  let inventory: { id: number };
  let host: { id: number };
  let team: { id: number };
  let member: Awaited<ReturnType<typeof newUser>>;
  let otherAdmin: Awaited<ReturnType<typeof newUser>>;

  before(async () => {
    t = await createTestApp();
    org = await newOrg(t, { name: 'Checked bodies' });
    member = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: await newOrg(t, { name: 'Other checked bodies' }) });
    inventory = await newInventory(t, org);
    host = await newHost(t, inventory, { name: 'checked-host' });
    team = await newTeam(t, org, { name: 'Checked team', description: 'as created' });
  });
  after(() => t.close());

  const stored = async (table: string, id: number) => (await t.db.query(`SELECT * FROM ${table} WHERE id = $1`, [id]))[0];

  it('a value of the wrong type is refused in the declaration\'s words, for several resources', async () => {
    const cases: [string, 'post' | 'patch', () => string, Record<string, unknown>, Record<string, string[]>][] = [
      ['host enabled', 'patch', () => `/api/v2/hosts/${host.id}/`, { enabled: 'yes' }, { enabled: ['Must be a valid boolean.'] }],
      ['host name', 'patch', () => `/api/v2/hosts/${host.id}/`, { name: ['a'] }, { name: ['Not a valid string.'] }],
      ['inventory kind', 'patch', () => `/api/v2/inventories/${inventory.id}/`, { kind: 'weird' }, { kind: ['"weird" is not a valid choice.'] }],
      ['organization max_hosts', 'patch', () => `/api/v2/organizations/${org.id}/`, { max_hosts: '5 hosts' }, { max_hosts: ['A valid integer is required.'] }],
      ['team organization', 'post', () => '/api/v2/teams/', { name: 'Typed', organization: true }, { organization: ['Incorrect type. Expected pk value, received boolean.'] }],
      ['organization name', 'patch', () => `/api/v2/organizations/${org.id}/`, { name: null }, { name: ['This field may not be blank.'] }],
      ['host inventory', 'patch', () => `/api/v2/hosts/${host.id}/`, { inventory: null }, { inventory: ['This field may not be null.'] }],
      ['organization name too long', 'patch', () => `/api/v2/organizations/${org.id}/`, { name: 'x'.repeat(513) }, { name: ['Ensure this field has no more than 512 characters.'] }],
    ];
    for (const [what, method, url, body, answer] of cases) {
      const res = await t[method](url(), body);
      assert.deepEqual([res.status, res.body], [400, answer], what);
    }
    assert.equal((await stored('hosts', host.id))!.enabled, true);
    assert.equal((await stored('organizations', org.id))!.name, 'Checked bodies');
    assert.equal(await t.db.query('SELECT 1 FROM teams WHERE name = $1', ['Typed']).then((rows) => rows.length), 0);
  });

  it('values AWX\'s serializers read are taken: digits for an integer or an id, words for a boolean, null for a text field', async () => {
    const orgPatch = await t.patch(`/api/v2/organizations/${org.id}/`, { max_hosts: '7', description: null });
    assert.equal(orgPatch.status, 200, orgPatch.text);
    assert.deepEqual([orgPatch.body.max_hosts, orgPatch.body.description], [7, '']);
    const hostPatch = await t.patch(`/api/v2/hosts/${host.id}/`, { enabled: 'False', instance_id: null });
    assert.equal(hostPatch.status, 200, hostPatch.text);
    assert.deepEqual([hostPatch.body.enabled, hostPatch.body.instance_id], [false, '']);
    const created = await t.post('/api/v2/teams/', { name: 'By digits', organization: String(org.id), description: null });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual([created.body.organization, created.body.description], [org.id, '']);
    await t.patch(`/api/v2/hosts/${host.id}/`, { enabled: 1 });
    assert.equal((await stored('hosts', host.id))!.enabled, true);
  });

  it('every problem is told at once: a missing field, what the schema refuses and what the declarations refuse', async () => {
    const res = await t.post('/api/v2/users/', { username: 'not valid!', email: 5, is_superuser: 'maybe', first_name: 'x'.repeat(200) });
    assert.equal(res.status, 400);
    assert.deepEqual(Object.keys(res.body).sort(), ['email', 'first_name', 'is_superuser', 'password', 'username']);
    assert.deepEqual(res.body.email, ['Not a valid string.']);
    assert.deepEqual(res.body.is_superuser, ['Must be a valid boolean.']);
    assert.deepEqual(res.body.password, ['This field is required.']);
    assert.match(res.body.username[0], /^Enter a valid username/);
    assert.match(res.body.first_name[0], /^Ensure this field has no more than \d+ characters\.$/);
    assert.equal(await t.db.query('SELECT 1 FROM users WHERE username = $1', ['not valid!']).then((rows) => rows.length), 0);
  });

  it('a replace (PUT) requires the required fields but keeps a secret it does not give', async () => {
    const missing = await t.put(`/api/v2/teams/${team.id}/`, { description: 'replaced' });
    assert.deepEqual([missing.status, missing.body], [400, { name: ['This field is required.'], organization: ['This field is required.'] }]);
    const user = await newUser(t, { username: 'replaced-user' });
    const replaced = await t.put(`/api/v2/users/${user.id}/`, { username: 'replaced-user', first_name: 'Replaced' });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal((await t.get('/api/v2/me/', { as: user })).status, 200, 'the password is kept');
  });

  it('a related list creates with the target\'s body schema, less what the list fixes; a body with an id links', async () => {
    const url = `/api/v2/organizations/${org.id}/teams/`;
    assert.deepEqual((await t.post(url, { name: 5 })).body, { name: ['Not a valid string.'] });
    assert.deepEqual((await t.post(url, { description: 'no name' })).body, { name: ['This field is required.'] });
    assert.deepEqual((await t.post(url, { id: 'abc', name: 5 })).body, { id: ['A valid integer is required.'] });
    const made = await t.post(url, { name: 'Made here', organization: 'ignored: the list fixes it', colour: 'blue' });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.organization, org.id);
    const hosts = await t.post(`/api/v2/inventories/${inventory.id}/hosts/`, { name: 'listed-host', enabled: 'maybe', variables: 5 });
    assert.equal(hosts.status, 400);
    assert.deepEqual(hosts.body, { enabled: ['Must be a valid boolean.'], variables: ['Not a valid string.'] });
  });

  it('a plain member and another organization\'s admin are refused before the body is looked at, and nothing changes', async () => {
    const before = [await stored('teams', team.id), await stored('organizations', org.id), await stored('hosts', host.id)];
    const teamCount = await t.db.query('SELECT count(*)::int AS n FROM teams');
    const attempts: [string, string, unknown][] = [
      ['POST', '/api/v2/teams/', { name: 42, organization: org.id }],
      ['PATCH', `/api/v2/teams/${team.id}/`, { description: { text: 'x' } }],
      ['PUT', `/api/v2/organizations/${org.id}/`, { max_hosts: 'many' }],
      ['PATCH', `/api/v2/hosts/${host.id}/`, { enabled: 'maybe', name: 5 }],
      ['POST', `/api/v2/organizations/${org.id}/teams/`, { name: 5 }],
      ['POST', `/api/v2/inventories/${inventory.id}/hosts/`, { name: [], enabled: 'maybe' }],
    ];
    for (const caller of [member, otherAdmin]) {
      for (const [method, url, body] of attempts) {
        const res = await t.request(method, url, { body, as: caller });
        assert.ok([403, 404].includes(res.status), `${caller.username} ${method} ${url}: ${res.status} ${res.text}`);
        assert.ok(typeof res.body.detail === 'string', `${method} ${url} tells nothing about the body: ${res.text}`);
      }
    }
    assert.deepEqual([await stored('teams', team.id), await stored('organizations', org.id), await stored('hosts', host.id)], before);
    assert.deepEqual(await t.db.query('SELECT count(*)::int AS n FROM teams'), teamCount);
  });

  it('the OpenAPI document\'s body schema is what the API takes: a value it refuses is refused, one it takes is taken', async () => {
    const doc = (await t.get('/api/v2/openapi.json')).body;
    const bodyOf = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema;
    const probes: [string, string, () => string, Record<string, unknown[]>][] = [
      ['/api/v2/organizations/{id}/', 'patch', () => `/api/v2/organizations/${org.id}/`, {
        max_hosts: [3, '4', 1.5, '4.5', 'x', null, true, [], -1, 2147483648],
        description: ['text', null, 5, false, {}, ''],
      }],
      ['/api/v2/hosts/{id}/', 'patch', () => `/api/v2/hosts/${host.id}/`, {
        enabled: [true, 'true', 'True', 'false', 0, 1, 2, 'yes', null, []],
        instance_id: ['i-1', null, 7, 'x'.repeat(1025)],
        variables: ['a: 1', { a: 1 }, null, 5, [1]],
      }],
      ['/api/v2/inventories/{id}/', 'patch', () => `/api/v2/inventories/${inventory.id}/`, {
        kind: ['', 'weird', null, 5],
        organization: [org.id, String(org.id), 'first', 0, null, 1.5],
      }],
    ];
    let refused = 0;
    for (const [path, method, url, fields] of probes) {
      const check = Compile(bodyOf(path, method));
      for (const [field, values] of Object.entries(fields)) {
        for (const value of values) {
          const taken = check.Check({ [field]: value });
          const res = await t.patch(url(), { [field]: value });
          assert.equal(res.status, taken ? 200 : 400, `${path} ${field}=${JSON.stringify(value)}: the schema ${taken ? 'takes' : 'refuses'} it, the API answered ${res.text}`);
          if (!taken) {
            assert.deepEqual(Object.keys(res.body), [field]);
            refused++;
          }
        }
      }
    }
    assert.ok(refused > 10);
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

/**
 * Objects created through a sub-list whose create is the parent's own (a group's hosts and
 * children, a template's labels, a node's children and its approval template) are checked by the
 * route's schema too: the target's create body less what the route fills in (the group's
 * inventory, the template's organization, the node's workflow), every problem in one 400, and only
 * for a caller who may add there.
 */
describe('sub-list creates checked by their schemas', () => {
  let t: TestApp;
  let org: { id: number };
  let group: { id: number; inventory: number };
  let workflow: { id: number; nodes: Record<string, number> };
  let member: Awaited<ReturnType<typeof newUser>>;
  let otherAdmin: Awaited<ReturnType<typeof newUser>>;

  before(async () => {
    t = await createTestApp();
    org = await newOrg(t, { name: 'Sub-list bodies' });
    member = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: await newOrg(t, { name: 'Other sub-list bodies' }) });
    const inventory = await newInventory(t, org);
    const made = await t.post('/api/v2/groups/', { name: 'web', inventory: inventory.id });
    assert.equal(made.status, 201, made.text);
    group = made.body;
    workflow = await newWorkflow(t, org, { nodes: { first: {} } });
  });
  after(() => t.close());

  const url = {
    hosts: () => `/api/v2/groups/${group.id}/hosts/`,
    children: () => `/api/v2/groups/${group.id}/children/`,
    labels: () => `/api/v2/workflow_job_templates/${workflow.id}/labels/`,
    nodes: () => `/api/v2/workflow_job_template_nodes/${workflow.nodes.first}/success_nodes/`,
    approval: () => `/api/v2/workflow_job_template_nodes/${workflow.nodes.first}/create_approval_template/`,
  };

  /** What the routes could change, read from the database. */
  const state = async () => {
    const counts = await t.db.query(`SELECT
      (SELECT count(*)::int FROM hosts) AS hosts, (SELECT count(*)::int FROM groups) AS groups,
      (SELECT count(*)::int FROM group_hosts) AS group_hosts, (SELECT count(*)::int FROM group_children) AS group_children,
      (SELECT count(*)::int FROM labels) AS labels, (SELECT count(*)::int FROM workflow_job_template_labels) AS workflow_labels,
      (SELECT count(*)::int FROM workflow_job_template_nodes) AS nodes, (SELECT count(*)::int FROM workflow_job_template_node_edges) AS edges`);
    const approvals = await t.db.query('SELECT id, name, description, timeout FROM workflow_approval_templates ORDER BY id');
    return { counts, approvals };
  };

  it('a group\'s hosts/: a wrong type and a missing name in one 400, nothing stored; digits and words taken, the inventory filled in', async () => {
    const before = await state();
    const bad = await t.post(url.hosts(), { enabled: 'maybe', variables: 5 });
    assert.deepEqual([bad.status, bad.body], [400, { name: ['This field is required.'], enabled: ['Must be a valid boolean.'], variables: ['Not a valid string.'] }]);
    const typed = await t.post(url.hosts(), { name: ['web-1'] });
    assert.deepEqual([typed.status, typed.body], [400, { name: ['Not a valid string.'] }]);
    assert.deepEqual(await state(), before);

    const made = await t.post(url.hosts(), { name: 'web-1', enabled: 'False', instance_id: null, inventory: 'ignored: the group fills it in' });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual([made.body.enabled, made.body.instance_id, made.body.inventory], [false, '', group.inventory]);
    const listed = (await t.get(url.hosts())).body.results.map((h: { id: number }) => h.id);
    assert.deepEqual(listed, [made.body.id]);
  });

  it('a group\'s hosts/: naming an existing host with a refused value links nothing', async () => {
    const host = await newHost(t, group.inventory, { name: 'web-2' });
    const before = await state();
    const res = await t.post(url.hosts(), { name: 'web-2', enabled: 'maybe' });
    assert.deepEqual([res.status, res.body], [400, { enabled: ['Must be a valid boolean.'] }]);
    assert.deepEqual(await state(), before);
    assert.equal((await t.post(url.hosts(), { name: 'web-2' })).status, 204);
    assert.ok((await t.get(url.hosts())).body.results.some((h: { id: number }) => h.id === host.id));
  });

  it('a group\'s children/: a wrong type and a missing name in one 400, nothing stored; null taken for a text field', async () => {
    const before = await state();
    const bad = await t.post(url.children(), { description: 5, variables: [1] });
    assert.deepEqual([bad.status, bad.body], [400, { name: ['This field is required.'], description: ['Not a valid string.'], variables: ['Not a valid string.'] }]);
    assert.deepEqual(await state(), before);

    const made = await t.post(url.children(), { name: 'web-east', description: null });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual([made.body.description, made.body.inventory], ['', group.inventory]);
    assert.ok((await t.get(url.children())).body.results.some((g: { id: number }) => g.id === made.body.id));
  });

  it('a template\'s labels/: a wrong type or a missing name refused, nothing stored; the organization filled in', async () => {
    const before = await state();
    const typed = await t.post(url.labels(), { name: 5 });
    assert.deepEqual([typed.status, typed.body], [400, { name: ['Not a valid string.'] }]);
    const missing = await t.post(url.labels(), { colour: 'red' });
    assert.deepEqual([missing.status, missing.body], [400, { name: ['This field is required.'] }]);
    const long = await t.post(url.labels(), { name: 'x'.repeat(513) });
    assert.deepEqual([long.status, long.body], [400, { name: ['Ensure this field has no more than 512 characters.'] }]);
    assert.deepEqual(await state(), before);

    const made = await t.post(url.labels(), { name: 'urgent', organization: 'ignored: the template fills it in' });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.organization, org.id);
    assert.equal((await t.post(url.labels(), { name: 'urgent' })).status, 204, 'an existing label of the organization is attached');
    assert.deepEqual((await t.get(url.labels())).body.results.map((l: { name: string }) => l.name), ['urgent']);
  });

  it('a node\'s success_nodes/: every problem of a new child in one 400, the condition\'s too, nothing stored; digits and words taken', async () => {
    const before = await state();
    const bad = await t.post(url.nodes(), { identifier: 5, all_parents_must_converge: 'maybe', verbosity: 'loud', condition: 7 });
    assert.deepEqual([bad.status, bad.body], [400, {
      identifier: ['Not a valid string.'],
      all_parents_must_converge: ['Must be a valid boolean.'],
      verbosity: ['A valid integer is required.'],
      condition: ['Not a valid string.'],
    }]);
    const syntax = await t.post(url.nodes(), { job_type: 'walk', condition: 'artifacts.x >' });
    assert.equal(syntax.status, 400);
    assert.deepEqual(Object.keys(syntax.body).sort(), ['condition', 'job_type']);
    assert.deepEqual(syntax.body.job_type, ['"walk" is not a valid choice.']);
    assert.match(syntax.body.condition[0], /syntax/i);
    assert.deepEqual(await state(), before);

    const made = await t.post(url.nodes(), { identifier: 'second', all_parents_must_converge: 'true', verbosity: '2', workflow_job_template: 'ignored: the parent\'s workflow' });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual([made.body.all_parents_must_converge, made.body.verbosity, made.body.workflow_job_template], [true, 2, workflow.id]);
    assert.deepEqual((await t.get(url.nodes())).body.results.map((n: { id: number }) => n.id), [made.body.id]);
  });

  it('a node\'s create_approval_template/: a wrong type and a missing name in one 400, nothing changed; digits taken', async () => {
    const before = await state();
    const bad = await t.post(url.approval(), { timeout: 'soon', description: 5 });
    assert.deepEqual([bad.status, bad.body], [400, { name: ['This field is required.'], timeout: ['A valid integer is required.'], description: ['Not a valid string.'] }]);
    const negative = await t.post(url.approval(), { name: 'Approve', timeout: -1 });
    assert.deepEqual([negative.status, negative.body], [400, { timeout: ['Ensure this value is greater than or equal to 0.'] }]);
    assert.deepEqual(await state(), before);

    const made = await t.post(url.approval(), { name: 'Approve please', timeout: '30', description: null });
    assert.equal(made.status, 201, made.text);
    assert.deepEqual([made.body.name, made.body.timeout, made.body.description], ['Approve please', 30, '']);
  });

  it('a plain member and another organization\'s admin are refused before the body is looked at, and nothing changes', async () => {
    const attempts: [string, () => string, Record<string, unknown>][] = [
      ['group hosts', url.hosts, { enabled: 'maybe' }],
      ['group hosts', url.hosts, { name: 'member-host' }],
      ['group children', url.children, { name: 5 }],
      ['group children', url.children, { name: 'member-group' }],
      ['labels', url.labels, { name: 5 }],
      ['labels', url.labels, { name: 'member-label' }],
      ['success nodes', url.nodes, { identifier: 5, condition: 7 }],
      ['success nodes', url.nodes, { identifier: 'member-node' }],
      ['approval template', url.approval, { timeout: 'soon' }],
      ['approval template', url.approval, { name: 'member-approval' }],
    ];
    const before = await state();
    for (const caller of [member, otherAdmin]) {
      for (const [what, to, body] of attempts) {
        const res = await t.post(to(), body, { as: caller });
        assert.ok([403, 404].includes(res.status), `${caller.username} ${what} ${JSON.stringify(body)}: ${res.status} ${res.text}`);
        assert.deepEqual(Object.keys(res.body), ['detail'], `${what}: nothing is told about the body: ${res.text}`);
      }
    }
    assert.deepEqual(await state(), before);
  });

  it('the OpenAPI document describes what each route checks: its create body less what the route fills in', async () => {
    const doc = (await t.get('/api/v2/openapi.json')).body;
    const bodyOf = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema;
    const created = (schema: { anyOf?: { required?: string[]; properties: Record<string, unknown> }[] }) => schema.anyOf!.find((s) => !s.required?.includes('id'))!;
    const hosts = created(bodyOf('/api/v2/groups/{id}/hosts/'));
    assert.deepEqual([hosts.required, 'inventory' in hosts.properties, 'enabled' in hosts.properties], [['name'], false, true]);
    const children = created(bodyOf('/api/v2/groups/{id}/children/'));
    assert.deepEqual([children.required, 'inventory' in children.properties], [['name'], false]);
    const labels = created(bodyOf('/api/v2/workflow_job_templates/{id}/labels/'));
    assert.deepEqual([labels.required, Object.keys(labels.properties)], [['name'], ['name']]);

    const probes: [string, () => string, Record<string, unknown>[]][] = [
      ['/api/v2/workflow_job_template_nodes/{id}/success_nodes/', url.nodes, [
        { verbosity: 'loud' }, { all_parents_must_converge: 'yes' }, { condition: 5 }, { id: 'x' }, { forks: -1 }, { job_type: 'check', forks: '3' },
      ]],
      ['/api/v2/workflow_job_template_nodes/{id}/create_approval_template/', url.approval, [
        {}, { name: 5 }, { name: 'Checked', timeout: '1.5' }, { name: 'Checked', timeout: '12' },
      ]],
    ];
    for (const [path, to, bodies] of probes) {
      const check = Compile(bodyOf(path));
      for (const body of bodies) {
        const taken = check.Check(body);
        const res = await t.post(to(), body);
        assert.equal(res.status, taken ? 201 : 400, `${path} ${JSON.stringify(body)}: the schema ${taken ? 'takes' : 'refuses'} it, the API answered ${res.text}`);
      }
    }
  });
});
