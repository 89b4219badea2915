import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { createTestApp, type Credentials, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/jobs.ts';
import { nodeCapacity, registerInstance } from '../src/resources/instances/registration.ts';
import { adjustedCapacity } from '../src/resources/instances/capacity.ts';
import { detectAnsibleRuntime } from '../src/runtime/ansible-runtime.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const cpuCapacity = os.cpus().length * 4;
const memCapacity = Math.floor(os.totalmem() / 1024 / 1024 / 100);

describe('instances', () => {
  let t: TestApp;
  let plain: Credentials & { id: number };
  let auditor: Credentials & { id: number };
  let id: number;

  before(async () => {
    // The app records its node's instance as its dispatcher starts.
    t = await createTestApp();
    plain = await t.createUser('plain');
    auditor = await t.createUser('auditor', { is_system_auditor: true });
    id = (await t.db.query<AnyRow>('SELECT id FROM instances WHERE hostname = $1', ['test-node']))[0].id;
  });
  after(() => t.close());

  it('nodeCapacity follows the real CPUs and memory: the smaller of cores × 4 and MB / 100', () => {
    const c = nodeCapacity();
    assert.equal(c.cpus, os.cpus().length);
    assert.equal(c.memoryBytes, os.totalmem());
    assert.equal(c.cpuCapacity, cpuCapacity);
    assert.equal(c.memCapacity, memCapacity);
    assert.equal(c.capacity, Math.min(cpuCapacity, memCapacity));
    assert.deepEqual(nodeCapacity(2, 8 * 1024 ** 3), { cpus: 2, memoryBytes: 8 * 1024 ** 3, cpuCapacity: 8, memCapacity: 81, capacity: 8 });
  });

  it('registers this node with real CPU, memory and capacity, in the default group', async () => {
    const res = await t.get(`/api/v2/instances/${id}/`, { as: auditor });
    assert.equal(res.status, 200, res.text);
    const i = res.body;
    assert.equal(i.type, 'instance');
    assert.equal(i.hostname, 'test-node');
    assert.equal(i.node_type, 'hybrid');
    assert.equal(i.cpu, os.cpus().length);
    assert.equal(i.memory, os.totalmem());
    assert.equal(i.cpu_capacity, cpuCapacity);
    assert.equal(i.mem_capacity, memCapacity);
    assert.equal(i.capacity_adjustment, 0);
    assert.equal(i.capacity, Math.min(cpuCapacity, memCapacity));
    assert.equal(i.consumed_capacity, 0);
    assert.equal(i.percent_capacity_remaining, 100);
    assert.equal(i.jobs_running, 0);
    assert.equal(i.enabled, true);
    assert.equal(i.errors, '');
    assert.ok(i.heartbeat && i.heartbeat === i.last_seen);
    assert.ok(i.version);
    assert.equal(i.related.instance_groups, `/api/v2/instances/${id}/instance_groups/`);
    const groups = await t.get(`/api/v2/instances/${id}/instance_groups/`);
    assert.deepEqual(groups.body.results.map((g: any) => g.name), ['default']);
    const list = await t.get('/api/v2/instances/?hostname=test-node', { as: auditor });
    assert.equal(list.body.count, 1);
  });

  it('capacity_adjustment blends between the smaller and the larger capacity, as AWX', async () => {
    const lower = Math.min(cpuCapacity, memCapacity);
    const higher = Math.max(cpuCapacity, memCapacity);
    const half = await t.patch(`/api/v2/instances/${id}/`, { capacity_adjustment: 0.5 });
    assert.equal(half.status, 200, half.text);
    assert.equal(half.body.capacity_adjustment, 0.5);
    assert.equal(half.body.capacity, Math.floor(lower + (higher - lower) * 0.5));
    const full = await t.patch(`/api/v2/instances/${id}/`, { capacity_adjustment: 1 });
    assert.equal(full.body.capacity, higher);
    // A heartbeat keeps the adjustment.
    await registerInstance(t.services);
    assert.equal((await t.get(`/api/v2/instances/${id}/`)).body.capacity, higher);
    assert.equal(adjustedCapacity(8, 81, 0.25), 26);
    assert.equal(adjustedCapacity(8, 81, 1, false), 0);
    const back = await t.patch(`/api/v2/instances/${id}/`, { capacity_adjustment: 0 });
    assert.equal(back.body.capacity, lower);
  });

  it('refuses a capacity_adjustment outside 0..1 and changes nothing', async () => {
    for (const value of [1.5, -0.1, 'x']) {
      const res = await t.patch(`/api/v2/instances/${id}/`, { capacity_adjustment: value });
      assert.equal(res.status, 400, String(value));
      assert.ok(res.body.capacity_adjustment, res.text);
    }
    assert.equal((await t.get(`/api/v2/instances/${id}/`)).body.capacity_adjustment, 0);
  });

  it('disabling an instance takes its capacity away; enabling gives it back', async () => {
    const off = await t.patch(`/api/v2/instances/${id}/`, { enabled: false });
    assert.equal(off.status, 200);
    assert.equal(off.body.capacity, 0);
    const on = await t.patch(`/api/v2/instances/${id}/`, { enabled: true });
    assert.equal(on.body.capacity, Math.min(cpuCapacity, memCapacity));
  });

  it('only superusers change instances; nobody creates or deletes them through the API', async () => {
    assert.equal((await t.patch(`/api/v2/instances/${id}/`, { enabled: false }, { as: plain })).status, 403);
    assert.equal((await t.patch(`/api/v2/instances/${id}/`, { capacity_adjustment: 0.5 }, { as: auditor })).status, 403);
    assert.equal((await t.get(`/api/v2/instances/${id}/`)).body.enabled, true);
    assert.equal((await t.get(`/api/v2/instances/${id}/`, { as: auditor })).body.summary_fields.user_capabilities.edit, false);
    // A user who sees no instance group sees none of its instances (AWX's InstanceAccess).
    assert.ok([403, 404].includes((await t.get(`/api/v2/instances/${id}/`, { as: plain })).status));
    assert.equal((await t.delete(`/api/v2/instances/${id}/`)).status, 405);
    assert.equal((await t.post('/api/v2/instances/', { hostname: 'x' })).status, 405);
    assert.equal((await t.get('/api/v2/instances/', { as: null })).status, 401);
  });

  it('counts waiting and running runs on the node as consumed capacity, and lists its jobs', async () => {
    const [project] = await t.db.query<AnyRow>('SELECT id FROM projects LIMIT 1');
    const [org] = await t.db.query<AnyRow>('SELECT id FROM organizations LIMIT 1');
    const p = project ?? (await t.post('/api/v2/projects/', { name: 'cap', organization: org.id, scm_type: '' })).body;
    await t.db.query<AnyRow>(
      `INSERT INTO unified_jobs (kind, name, status, execution_node, project_id) VALUES
       ('project_update', 'a', 'running', 'test-node', $1), ('project_update', 'b', 'waiting', 'test-node', $1),
       ('project_update', 'c', 'successful', 'test-node', $1), ('project_update', 'd', 'running', 'other-node', $1)`,
      [p.id],
    );
    const i = (await t.get(`/api/v2/instances/${id}/`)).body;
    assert.equal(i.consumed_capacity, 2);
    assert.equal(i.jobs_running, 2);
    assert.equal(i.jobs_total, 3);
    assert.equal(i.percent_capacity_remaining, Math.round(((i.capacity - 2) / i.capacity) * 10_000) / 100);
    const jobs = await t.get(`/api/v2/instances/${id}/jobs/`);
    assert.equal(jobs.status, 200);
    assert.deepEqual(jobs.body.results.map((j: any) => j.name).sort(), ['a', 'b', 'c']);
    assert.equal(jobs.body.results[0].type, 'project_update');
    // A user who sees no instance group sees neither the node nor its runs.
    assert.ok([403, 404].includes((await t.get(`/api/v2/instances/${id}/jobs/`, { as: plain })).status));
  });

  it('records a missing Ansible runtime in errors, with no capacity, and in ping', async () => {
    const missing = await detectAnsibleRuntime({ ansiblePlaybook: '/nonexistent/ansible-playbook', ansibleRunner: '/usr/bin/ansible-runner' });
    assert.equal(missing.available, false);
    assert.match(missing.error, /\/nonexistent\/ansible-playbook/);
    assert.match(missing.error, /apt-get install ansible-core python3-ansible-runner/);
    await registerInstance(t.services, missing);
    const i = (await t.get(`/api/v2/instances/${id}/`)).body;
    assert.equal(i.errors, missing.error);
    assert.equal(i.capacity, 0);
    const ping = await t.get('/api/v2/ping/', { as: null });
    assert.equal(ping.body.instances.find((n: any) => n.node === 'test-node').errors, missing.error);
    await registerInstance(t.services);
    const healthy = (await t.get(`/api/v2/instances/${id}/`)).body;
    assert.equal(healthy.errors, '');
    assert.equal(healthy.capacity, Math.min(cpuCapacity, memCapacity));
  });

  it('ping lists instances, instance groups and the Ansible runtime without authentication', async () => {
    // Ping may answer its last reading while a fresh one runs (src/server/ping-reading.ts): the
    // previous test left one with the node in error, so wait for a reading taken since.
    const res = await eventually(async () => {
      const answer = await t.get('/api/v2/ping/', { as: null });
      return answer.body.instances?.find((n: any) => n.node === 'test-node')?.capacity > 0 ? answer : null;
    }, 10_000, 'a ping reading with the healthy node');
    assert.equal(res.status, 200);
    assert.equal(res.body.active_node, 'test-node');
    const node = res.body.instances.find((n: any) => n.node === 'test-node');
    assert.equal(node.node_type, 'hybrid');
    assert.equal(node.capacity, Math.min(cpuCapacity, memCapacity));
    const group = res.body.instance_groups.find((g: any) => g.name === 'default');
    assert.deepEqual(group, { name: 'default', capacity: node.capacity, instances: ['test-node'] });
    assert.equal(res.body.ansible_runtime.available, true);
    assert.match(res.body.ansible_runtime.ansible_playbook_version, /^2\.\d+/);
    assert.match(res.body.ansible_runtime.ansible_runner_version, /^\d+\.\d+/);
    assert.equal(res.body.ansible_runtime.error, '');
  });
});
