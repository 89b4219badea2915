import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { grant, newHost, newInventory, newJobTemplate, newOrg, newProject, newUser, type User } from './helpers/factories.ts';
import { waitForRun } from './helpers/jobs.ts';
import type { Gate } from '../src/runs/gates.ts';

/** AWX's bulk endpoints (docs/bulk.md): hosts created and deleted in one transaction, many templates launched as one workflow job. */
describe('bulk API', () => {
  let t: TestApp;
  let denyLimit = '';
  // Denies launches whose limit is the one named: a stand-in for policy, quotas and scanners.
  const gate: Gate = { name: 'test gate', check: async (_tx, launch) => (denyLimit && launch.run.limit === denyLimit ? { decision: 'deny', status: 403, message: 'Denied by the test gate.' } : { decision: 'allow' }) };
  let org: number;
  let otherOrg: number;
  let inventory: number;
  let template: number;
  let member: User;
  let otherAdmin: User;

  before(async () => {
    t = await createTestApp({}, { gates: [gate] });
    org = (await newOrg(t, { name: 'bulk org' })).id;
    otherOrg = (await newOrg(t, { name: 'other org' })).id;
    inventory = (await newInventory(t, org, { name: 'bulk inv', hosts: ['existing'] })).id;
    const project = (await newProject(t, org, { name: 'bulk plays' })).id;
    template = (await newJobTemplate(t, { name: 'bulk jt', project, inventory, ask_limit_on_launch: true, allow_simultaneous: true })).id;
    member = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: otherOrg });
  });
  after(async () => {
    await t?.close();
  });

  const hostCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM hosts'))[0].n;
  const runCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM unified_jobs'))[0].n;
  const setting = async (name: string, value: number) => assert.equal((await t.patch('/api/v2/settings/bulk/', { [name]: value })).status, 200);

  it('lists its endpoints, answers GET with what each takes, and needs a signed-in user', async () => {
    const index = await t.get('/api/v2/bulk/');
    assert.equal(index.status, 200);
    assert.deepEqual(index.body, { host_create: '/api/v2/bulk/host_create/', host_delete: '/api/v2/bulk/host_delete/', job_launch: '/api/v2/bulk/job_launch/' });
    assert.equal((await t.get('/api/v2/')).body.bulk, '/api/v2/bulk/');
    assert.deepEqual((await t.get('/api/v2/bulk/host_create/')).body, { detail: 'Bulk create hosts with this endpoint' });
    assert.match((await t.get('/api/v2/bulk/job_launch/')).body.detail, /unified job templates/);
    assert.equal((await t.request('OPTIONS', '/api/v2/bulk/host_create/')).body.actions.POST.inventory.required, true);
    assert.equal((await t.get('/api/v2/bulk/', { as: null })).status, 401);
    assert.equal((await t.post('/api/v2/bulk/host_create/', { inventory, hosts: [{ name: 'anon' }] }, { as: null })).status, 401);
  });

  it('creates hosts in one request: AWX body, inventory totals updated once, one activity entry', async () => {
    const activity = (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM activity_stream WHERE object1 = 'inventory' AND object1_id = $1`, [inventory]))[0].n;
    const res = await t.post('/api/v2/bulk/host_create/', {
      inventory, hosts: [{ name: 'web1', description: 'first', enabled: false, instance_id: 'i-1', variables: { a: 1 } }, { name: 'web2', variables: 'b: 2' }],
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.url, `/api/v2/inventories/${inventory}/`);
    assert.equal(res.body.hosts.length, 2);
    const [web1, web2] = res.body.hosts;
    assert.deepEqual({ ...web1, id: 0 }, { name: 'web1', enabled: false, instance_id: 'i-1', description: 'first', variables: '{"a":1}', id: 0, url: `/api/v2/hosts/${web1.id}/`, inventory: `/api/v2/inventories/${inventory}/` });
    assert.equal(web2.variables, 'b: 2');
    assert.equal(web2.enabled, true);
    const stored = (await t.get(`/api/v2/hosts/${web1.id}/`)).body;
    assert.equal(stored.name, 'web1');
    assert.equal(stored.enabled, false);
    const inv = (await t.get(`/api/v2/inventories/${inventory}/`)).body;
    assert.equal(inv.total_hosts, 3);
    const entries = await t.db.query<{ changes: any; operation: string }>(`SELECT operation, changes FROM activity_stream WHERE object1 = 'inventory' AND object1_id = $1 ORDER BY id`, [inventory]);
    assert.equal(entries.length, activity + 1);
    assert.deepEqual(entries.at(-1), { operation: 'update', changes: { total_hosts: [1, 3] } });
  });

  it('refuses bad bodies, taken and repeated names, smart inventories and going past BULK_HOST_MAX_CREATE, creating nothing', async () => {
    const before = await hostCount();
    const cases: [unknown, number, RegExp][] = [
      [{ hosts: [{ name: 'x' }] }, 400, /inventory.*This field is required/],
      [{ inventory }, 400, /hosts.*This field is required/],
      [{ inventory, hosts: [] }, 400, /may not be empty/],
      [{ inventory, hosts: 'web9' }, 400, /Expected a list/],
      [{ inventory, hosts: [{ name: '' }] }, 400, /may not be blank/],
      [{ inventory, hosts: [{ name: 'ok' }, { description: 'no name' }] }, 400, /"1":\{"name":\["This field is required/],
      [{ inventory, hosts: [{ name: 'v', variables: '[1, 2]' }] }, 400, /variables/],
      [{ inventory, hosts: [{ name: 'e', enabled: 'perhaps' }] }, 400, /valid boolean/],
      [{ inventory: 'abc', hosts: [{ name: 'x' }] }, 400, /Expected pk value/],
      [{ inventory: 999999, hosts: [{ name: 'x' }] }, 400, /Invalid pk \\"999999\\"/],
      [{ inventory, hosts: [{ name: 'web1' }, { name: 'new' }] }, 400, /Duplicates found: \['web1'\]/],
      [{ inventory, hosts: [{ name: 'twice' }, { name: 'twice' }] }, 400, /Duplicates found: \['twice', 'twice'\]/],
      [[{ name: 'x' }], 400, /./],
    ];
    for (const [body, status, message] of cases) {
      const res = await t.post('/api/v2/bulk/host_create/', body);
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.text, message, JSON.stringify(body));
    }
    const smart = (await t.post('/api/v2/inventories/', { name: 'smart', organization: org, kind: 'smart', host_filter: 'name=web1' })).body.id;
    const res = await t.post('/api/v2/bulk/host_create/', { inventory: smart, hosts: [{ name: 's1' }] });
    assert.equal(res.status, 400);
    assert.match(res.text, /only be created in manual inventories/);
    await setting('BULK_HOST_MAX_CREATE', 2);
    try {
      const over = await t.post('/api/v2/bulk/host_create/', { inventory, hosts: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
      assert.equal(over.status, 400);
      assert.deepEqual(over.body, { __all__: ['Number of hosts exceeds system setting BULK_HOST_MAX_CREATE'] });
    } finally {
      await setting('BULK_HOST_MAX_CREATE', 100);
    }
    assert.equal(await hostCount(), before);
  });

  it('refuses a plain user and another organization\'s admin, and lets the inventory\'s admin', async () => {
    const before = await hostCount();
    for (const who of [member, otherAdmin]) {
      const res = await t.post('/api/v2/bulk/host_create/', { inventory, hosts: [{ name: 'intruder' }] }, { as: who });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body, { __all__: [`Inventory with id ${inventory} not found or lack permissions to add hosts.`] });
    }
    assert.equal(await hostCount(), before);
    const admin = await newUser(t);
    await grant(t, admin, `/api/v2/inventories/${inventory}/`, 'admin_role');
    const res = await t.post('/api/v2/bulk/host_create/', { inventory, hosts: [{ name: 'by-inventory-admin' }] }, { as: admin });
    assert.equal(res.status, 201, res.text);
  });

  it('deletes hosts of several inventories in one request, with AWX\'s body and activity', async () => {
    const second = (await newInventory(t, org, { name: 'second inv' })).id;
    const a = (await newHost(t, inventory, { name: 'gone-a' })).id;
    const b = (await newHost(t, second, { name: 'gone-b' })).id;
    const res = await t.post('/api/v2/bulk/host_delete/', { hosts: [a, b] });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body, { hosts: { [a]: 'The host gone-a was deleted', [b]: 'The host gone-b was deleted' } });
    assert.equal((await t.get(`/api/v2/hosts/${a}/`)).status, 404);
    assert.equal((await t.get(`/api/v2/inventories/${second}/`)).body.total_hosts, 0);
    const [entry] = await t.db.query<{ changes: any }>(`SELECT changes FROM activity_stream WHERE object1 = 'inventory' AND object1_id = $1 ORDER BY id DESC LIMIT 1`, [second]);
    assert.deepEqual(entry.changes, { deleted_hosts: [{ host_id: b, host_name: 'gone-b' }] });
  });

  it('refuses deleting unknown hosts, hosts the caller cannot see or administer, bad bodies and more than BULK_HOST_MAX_DELETE, deleting nothing', async () => {
    const keep = (await newHost(t, inventory, { name: 'keep' })).id;
    const before = await hostCount();
    const unknown = await t.post('/api/v2/bulk/host_delete/', { hosts: [keep, 999999] });
    assert.equal(unknown.status, 400);
    assert.deepEqual(unknown.body, { hosts: { 999999: 'Hosts do not exist or you lack permission to delete it' } });
    for (const who of [member, otherAdmin]) {
      const res = await t.post('/api/v2/bulk/host_delete/', { hosts: [keep] }, { as: who });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body, { hosts: { [keep]: 'Hosts do not exist or you lack permission to delete it' } });
    }
    const reader = await newUser(t);
    await grant(t, reader, `/api/v2/inventories/${inventory}/`, 'read_role');
    const denied = await t.post('/api/v2/bulk/host_delete/', { hosts: [keep] }, { as: reader });
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body, { inventories: { 'bulk inv': 'Lack permissions to delete hosts from this inventory.' } });
    for (const body of [{}, { hosts: [] }, { hosts: 'x' }, { hosts: ['abc'] }]) {
      assert.equal((await t.post('/api/v2/bulk/host_delete/', body)).status, 400, JSON.stringify(body));
    }
    await setting('BULK_HOST_MAX_DELETE', 1);
    try {
      const over = await t.post('/api/v2/bulk/host_delete/', { hosts: [keep, keep + 1] });
      assert.equal(over.status, 400);
      assert.deepEqual(over.body, { ERROR: 'Number of hosts exceeds system setting BULK_HOST_MAX_DELETE', BULK_HOST_MAX_DELETE: 1, Hosts_count: 2 });
    } finally {
      await setting('BULK_HOST_MAX_DELETE', 250);
    }
    assert.equal(await hostCount(), before);
  });

  it('launches templates as the nodes of one bulk workflow job, each with its prompts, and runs them', async () => {
    const res = await t.post('/api/v2/bulk/job_launch/', { name: 'two at once', jobs: [{ unified_job_template: template, limit: 'existing', identifier: 'first' }, { unified_job_template: template }] });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.type, 'workflow_job');
    assert.equal(res.body.is_bulk_job, true);
    assert.equal(res.body.name, 'two at once');
    assert.equal(res.body.url, `/api/v2/workflow_jobs/${res.body.id}/`);
    const done = await waitForRun(t, res.body.url);
    assert.equal(done.status, 'successful');
    const nodes = (await t.get(`/api/v2/workflow_jobs/${res.body.id}/workflow_nodes/`)).body.results;
    assert.equal(nodes.length, 2);
    const first = nodes.find((n: any) => n.identifier === 'first');
    const job = (await t.get(`/api/v2/jobs/${first.job}/`)).body;
    assert.equal(job.limit, 'existing');
    assert.equal(job.launch_type, 'workflow');
    assert.equal(job.status, 'successful');
  });

  it('passes each bulk job through the launch gates: a denied one fails its node, the others run', async () => {
    denyLimit = 'blocked';
    try {
      const res = await t.post('/api/v2/bulk/job_launch/', { jobs: [{ unified_job_template: template, limit: 'blocked' }, { unified_job_template: template, limit: 'existing' }] });
      assert.equal(res.status, 201, res.text);
      const done = await waitForRun(t, res.body.url);
      assert.equal(done.status, 'failed');
      const nodes = (await t.get(`/api/v2/workflow_jobs/${res.body.id}/workflow_nodes/?order_by=id`)).body.results;
      const jobs = await Promise.all(nodes.map(async (n: any) => (await t.get(`/api/v2/jobs/${n.job}/`)).body));
      assert.equal(jobs[0].status, 'failed');
      assert.match(jobs[0].job_explanation, /Denied by the test gate/);
      assert.equal(jobs[1].status, 'successful');
    } finally {
      denyLimit = '';
    }
  });

  it('refuses bad bodies, unknown templates, repeated identifiers and going past BULK_JOB_MAX_LAUNCH, launching nothing', async () => {
    const before = await runCount();
    const cases: [unknown, RegExp][] = [
      [{}, /jobs.*This field is required/],
      [{ jobs: [] }, /may not be empty/],
      [{ jobs: [{}] }, /unified_job_template.*This field is required/],
      [{ jobs: [{ unified_job_template: 'x' }] }, /valid integer/],
      [{ jobs: [{ unified_job_template: template, verbosity: 9 }] }, /verbosity/],
      [{ jobs: [{ unified_job_template: template, credentials: 'x' }] }, /Expected a list/],
      [{ jobs: [{ unified_job_template: template }], extra_vars: '[1]' }, /extra_vars/],
      [{ jobs: [{ unified_job_template: 999999 }] }, /Unified Job Templates \{999999\} not found/],
      [{ jobs: [{ unified_job_template: template, identifier: 'a' }, { unified_job_template: template, identifier: 'a' }] }, /Identifier a not unique/],
      [{ jobs: [{ unified_job_template: template }], organization: 999999 }, /Invalid pk \\"999999\\"/],
      [{ jobs: [{ unified_job_template: template, inventory: 999999 }] }, /Inventories \{999999\} not found/],
    ];
    for (const [body, message] of cases) {
      const res = await t.post('/api/v2/bulk/job_launch/', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.text, message, JSON.stringify(body));
    }
    await setting('BULK_JOB_MAX_LAUNCH', 1);
    try {
      const over = await t.post('/api/v2/bulk/job_launch/', { jobs: [{ unified_job_template: template }, { unified_job_template: template }] });
      assert.equal(over.status, 400);
      assert.deepEqual(over.body, { __all__: ['Number of requested jobs exceeds system setting BULK_JOB_MAX_LAUNCH'] });
    } finally {
      await setting('BULK_JOB_MAX_LAUNCH', 100);
    }
    assert.equal(await runCount(), before);
  });

  it('needs execute on each template and membership of the organization: a plain user and another org\'s admin are refused', async () => {
    const before = await runCount();
    const refused = await t.post('/api/v2/bulk/job_launch/', { jobs: [{ unified_job_template: template }] }, { as: member });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { __all__: [`Job Templates {${template}} not found or you don't have permissions to access it`] });
    const foreign = await t.post('/api/v2/bulk/job_launch/', { jobs: [{ unified_job_template: template }], organization: otherOrg }, { as: otherAdmin });
    assert.equal(foreign.status, 400);
    assert.match(foreign.text, /Job Templates/);
    await grant(t, otherAdmin, `/api/v2/job_templates/${template}/`, 'execute_role');
    const otherInventory = (await newInventory(t, otherOrg, { name: 'theirs' })).id;
    const inventoryRefused = await t.post('/api/v2/bulk/job_launch/', { jobs: [{ unified_job_template: template, inventory }] }, { as: otherAdmin });
    assert.match(inventoryRefused.text, /Inventories \{\d+\} not found/);
    const orgRefused = await t.post('/api/v2/bulk/job_launch/', { jobs: [{ unified_job_template: template }], organization: org }, { as: otherAdmin });
    assert.deepEqual(orgRefused.body, { __all__: [`Organization ${org} not found or you don't have permissions to access it`] });
    assert.equal(await runCount(), before);

    // With execute on the template, the caller's only organization is the bulk job's; they see it, a plain member of the org does not.
    const launched = await t.post('/api/v2/bulk/job_launch/', { jobs: [{ unified_job_template: template, inventory: otherInventory, limit: 'blocked' }] }, { as: otherAdmin });
    assert.equal(launched.status, 201, launched.text);
    assert.equal(launched.body.organization, otherOrg);
    assert.equal((await t.get(launched.body.url, { as: otherAdmin })).status, 200);
    assert.equal((await t.get(launched.body.url, { as: member })).status, 403);
    await waitForRun(t, launched.body.url);
  });
});
