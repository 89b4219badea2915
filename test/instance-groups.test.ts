import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newUser, type Credentials, type TestApp } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

describe('instance groups', () => {
  let t: TestApp;
  let plain: Credentials & { id: number };
  let nodeId: number;
  let defaultId: number;
  let capacity: number;

  before(async () => {
    // The app records its node's instance as its dispatcher starts.
    t = await createTestApp();
    plain = await newUser(t);
    const [node] = await t.db.query<AnyRow>(`SELECT id, capacity FROM instances WHERE hostname = 'test-node'`);
    nodeId = node.id;
    capacity = node.capacity;
    defaultId = (await t.db.query<AnyRow>(`SELECT id FROM instance_groups WHERE name = 'default'`))[0].id;
  });
  after(() => t.close());

  it('the default group exists, takes every node by policy and sums their capacity', async () => {
    const res = await t.get(`/api/v2/instance_groups/${defaultId}/`);
    assert.equal(res.status, 200, res.text);
    const g = res.body;
    assert.equal(g.name, 'default');
    assert.equal(g.policy_instance_percentage, 100);
    assert.equal(g.policy_instance_minimum, 0);
    assert.deepEqual(g.policy_instance_list, []);
    assert.equal(g.is_container_group, false);
    assert.equal(g.pod_spec_override, '');
    assert.equal(g.credential, null);
    assert.equal(g.max_concurrent_jobs, 0);
    assert.equal(g.max_forks, 0);
    assert.equal(g.instances, 1);
    assert.equal(g.capacity, capacity);
    assert.equal(g.consumed_capacity, 0);
    assert.equal(g.percent_capacity_remaining, 100);
    assert.deepEqual(Object.keys(g.summary_fields.object_roles).sort(), ['admin_role', 'read_role', 'use_role']);
    const members = await t.get(`/api/v2/instance_groups/${defaultId}/instances/`);
    assert.deepEqual(members.body.results.map((i: any) => i.hostname), ['test-node']);
    assert.equal((await t.get('/api/v2/instance_groups/default/')).body.id, defaultId);
  });

  it('a provisioned node joins the default group by policy', async () => {
    await t.db.query<AnyRow>(`INSERT INTO instances (hostname, node_type, capacity) VALUES ('exec-1', 'execution', 10), ('ctl-1', 'control', 5)`);
    await t.db.transaction(async (tx) => (await import('../src/resources/instance-groups/policy.ts')).applyInstanceGroupPolicies(tx));
    const g = (await t.get(`/api/v2/instance_groups/${defaultId}/`)).body;
    assert.equal(g.instances, 2, 'control nodes are not taken by policy');
    assert.equal(g.capacity, capacity + 10);
    await t.db.query<AnyRow>(`DELETE FROM instances WHERE hostname IN ('exec-1', 'ctl-1')`);
  });

  it('superusers create, change and delete groups; policy fields are validated', async () => {
    const bad = await t.post('/api/v2/instance_groups/', { name: 'x', policy_instance_percentage: 101, policy_instance_list: 'node' });
    assert.equal(bad.status, 400);
    assert.ok(bad.body.policy_instance_percentage && bad.body.policy_instance_list, bad.text);
    assert.equal((await t.post('/api/v2/instance_groups/', { name: 'default' })).status, 400);
    assert.equal((await t.post('/api/v2/instance_groups/', { name: 'k8s', is_container_group: true })).status, 400);
    const res = await t.post('/api/v2/instance_groups/', { name: 'half', policy_instance_minimum: 1 });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.instances, 1, 'policy_instance_minimum takes one node');
    const patched = await t.patch(`/api/v2/instance_groups/${res.body.id}/`, { policy_instance_minimum: 0, max_forks: 5 });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.instances, 0);
    assert.equal(patched.body.max_forks, 5);
    assert.equal((await t.delete(`/api/v2/instance_groups/${res.body.id}/`)).status, 204);
    assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM instance_groups WHERE name = 'half'`)).length, 0);
  });

  it('the default group cannot be deleted', async () => {
    assert.equal((await t.delete(`/api/v2/instance_groups/${defaultId}/`)).status, 403);
    assert.equal((await t.get(`/api/v2/instance_groups/${defaultId}/`)).body.summary_fields.user_capabilities.delete, false);
    const rename = await t.patch(`/api/v2/instance_groups/${defaultId}/`, { name: 'other' });
    assert.equal(rename.status, 400);
    assert.match(rename.body.name[0], /cannot be renamed/);
    assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM instance_groups WHERE name = 'default'`)).length, 1);
  });

  it('attach and detach an instance (204), kept in policy_instance_list', async () => {
    const group = (await t.post('/api/v2/instance_groups/', { name: 'manual' })).body;
    const url = `/api/v2/instance_groups/${group.id}/instances/`;
    assert.equal((await t.post(url, { id: nodeId })).status, 204);
    let g = (await t.get(`/api/v2/instance_groups/${group.id}/`)).body;
    assert.equal(g.instances, 1);
    assert.deepEqual(g.policy_instance_list, ['test-node']);
    assert.deepEqual((await t.get(url)).body.results.map((i: any) => i.id), [nodeId]);
    const activity = await t.get(`/api/v2/activity_stream/?operation=associate&object1=instance_group`);
    assert.ok(activity.body.count >= 1);
    assert.equal((await t.post(url, { id: nodeId, disassociate: true })).status, 204);
    g = (await t.get(`/api/v2/instance_groups/${group.id}/`)).body;
    assert.equal(g.instances, 0);
    assert.deepEqual(g.policy_instance_list, []);
    assert.equal((await t.post(url, { id: 999999 })).status, 404);
  });

  it('plain users see only groups they hold a role on, and change none', async () => {
    const group = (await t.post('/api/v2/instance_groups/', { name: 'shared' })).body;
    assert.equal((await t.get('/api/v2/instance_groups/', { as: plain })).body.count, 0);
    assert.equal((await t.get(`/api/v2/instance_groups/${group.id}/`, { as: plain })).status, 403);
    await grant(t, plain, group, 'use_role');
    const list = await t.get('/api/v2/instance_groups/', { as: plain });
    assert.deepEqual(list.body.results.map((g: any) => g.name), ['shared']);
    assert.equal((await t.patch(`/api/v2/instance_groups/${group.id}/`, { max_forks: 3 }, { as: plain })).status, 403);
    assert.equal((await t.post('/api/v2/instance_groups/', { name: 'mine' }, { as: plain })).status, 403);
    assert.equal((await t.post(`/api/v2/instance_groups/${group.id}/instances/`, { id: nodeId }, { as: plain })).status, 403);
    assert.equal((await t.delete(`/api/v2/instance_groups/${group.id}/`, { as: plain })).status, 403);
    await grant(t, plain, group, 'admin_role');
    const changed = await t.patch(`/api/v2/instance_groups/${group.id}/`, { max_forks: 3 }, { as: plain });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.max_forks, 3);
  });

  it('counts the runs on its instances as consumed capacity and lists them', async () => {
    const [org] = await t.db.query<AnyRow>('SELECT id FROM organizations LIMIT 1');
    const project = (await t.post('/api/v2/projects/', { name: 'ig', organization: org.id })).body;
    await t.db.query<AnyRow>(
      `INSERT INTO unified_jobs (kind, name, status, execution_node, project_id) VALUES
       ('project_update', 'r', 'running', 'test-node', $1), ('project_update', 'f', 'failed', 'test-node', $1)`,
      [project.id],
    );
    const g = (await t.get(`/api/v2/instance_groups/${defaultId}/`)).body;
    assert.equal(g.consumed_capacity, 1);
    assert.equal(g.jobs_running, 1);
    assert.equal(g.jobs_total, 2);
    assert.equal(g.percent_capacity_remaining, Math.round(((capacity - 1) / capacity) * 10_000) / 100);
    const jobs = await t.get(`/api/v2/instance_groups/${defaultId}/jobs/`);
    assert.deepEqual(jobs.body.results.map((j: any) => j.name).sort(), ['f', 'r']);
  });
});
