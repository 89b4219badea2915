// Lost nodes seen from one service, on either database: another node ("ghost", a row of its own
// whose heartbeat the test ages) is given runs, then goes silent. The cluster test
// (cluster.test.ts) does the same with real processes on PostgreSQL.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newInventory, newJobTemplate, newOrg, newProject, type TestApp } from './helpers/app.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';
import { reapLostNodes } from '../src/task-manager/lost-nodes.ts';
import { ServerDatabase } from '../src/db/server.ts';
import { serverConnection, serverMode } from './helpers/database.ts';

describe('lost nodes', () => {
  let t: TestApp;
  let template: number;
  let ghostGroup: number;

  const ghost = async () => (await t.get('/api/v2/instances/?hostname=ghost')).body.results[0];
  const launch = async () => {
    const res = await t.post(`/api/v2/job_templates/${template}/launch/`, {});
    assert.equal(res.status, 201, res.text);
    return res.body.job as number;
  };
  const waitingOnGhost = (id: number) =>
    eventually(async () => {
      const job = (await t.get(`/api/v2/jobs/${id}/`)).body;
      return job.status === 'waiting' && job.execution_node === 'ghost' ? job : null;
    }, 30_000, `job ${id} placed on ghost`);

  before(async () => {
    t = await createTestApp();
    const org = await newOrg(t);
    const project = await newProject(t, org);
    const inventory = await newInventory(t, org, { hosts: ['localhost'] });
    template = (await newJobTemplate(t, { project, inventory, allow_simultaneous: true })).id;
    // A second node, alive for now, with more room than this one.
    await t.db.query(`INSERT INTO instances (hostname, node_type, uuid, cpu_capacity, mem_capacity, capacity, last_seen)
                      VALUES ('ghost', 'hybrid', 'ghost-uuid', 500, 500, 500, now())`);
    ghostGroup = (await t.post('/api/v2/instance_groups/', { name: 'ghost-first', policy_instance_list: ['ghost'] })).body.id;
    const defaultGroup = (await t.get('/api/v2/instance_groups/?name=default')).body.results[0].id;
    for (const id of [ghostGroup, defaultGroup]) assert.equal((await t.post(`/api/v2/job_templates/${template}/instance_groups/`, { id })).status, 204);
  });

  after(() => t.close());

  it('marks a silent node unavailable, queues its unstarted runs elsewhere and fails its running ones, naming it', async () => {
    const given = await launch();
    await waitingOnGhost(given);
    const started = await launch();
    await waitingOnGhost(started);
    // The ghost had started the second before it went silent.
    await t.db.query(`UPDATE unified_jobs SET status = 'running', started = now() WHERE id = $1`, [started]);
    // Silent for a minute, past the default grace (two periods of 30 seconds).
    await t.db.query(`UPDATE instances SET last_seen = now() - interval '61 seconds' WHERE hostname = 'ghost'`);
    await t.settle();

    const failed = (await t.get(`/api/v2/jobs/${started}/`)).body;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.job_explanation, 'Task was marked as running but its node ghost stopped sending heartbeats, so it has been marked as failed.');
    const ran = await waitForRun(t, `/api/v2/jobs/${given}/`);
    assert.equal(ran.status, 'successful', ran.job_explanation);
    assert.equal(ran.execution_node, 'test-node');
    assert.equal(ran.job_explanation, 'Its node ghost stopped sending heartbeats before starting it, so it was queued again to run on another node.');

    const node = await ghost();
    assert.deepEqual(
      { node_state: node.node_state, capacity: node.capacity, cpu_capacity: node.cpu_capacity, mem_capacity: node.mem_capacity, errors: node.errors, consumed_capacity: node.consumed_capacity },
      { node_state: 'unavailable', capacity: 0, cpu_capacity: 0, mem_capacity: 0, errors: 'Another cluster node has determined this instance to be unresponsive', consumed_capacity: 0 },
    );
    assert.equal((await t.get(`/api/v2/instance_groups/${ghostGroup}/`)).body.capacity, 0);
    const ping = (await t.get('/api/v2/ping/')).body;
    assert.equal(ping.instances.find((i: any) => i.node === 'ghost').capacity, 0);
    assert.equal(ping.instance_groups.find((g: any) => g.name === 'ghost-first').capacity, 0);

    // A second look (another node's, say) finds nothing left to do.
    assert.deepEqual(await reapLostNodes(t.db, t.services.runKinds, 'test-node', 60), { unavailable: [], requeued: [], failed: [] });
  });

  it('two nodes looking at once act once on the node and on each of its runs', { skip: !serverMode() && 'needs a PostgreSQL server' }, async () => {
    await t.db.query(`UPDATE instances SET node_state = 'ready', capacity = 500, cpu_capacity = 500, mem_capacity = 500, errors = '', last_seen = now() WHERE hostname = 'ghost'`);
    const jobs = [await launch(), await launch(), await launch(), await launch()];
    for (const id of jobs) await waitingOnGhost(id);
    const running = jobs.slice(0, 2);
    await t.db.query(`UPDATE unified_jobs SET status = 'running', started = now() WHERE id = ANY($1::int[])`, [running]);
    await t.db.query(`UPDATE instances SET last_seen = now() - interval '61 seconds' WHERE hostname = 'ghost'`);
    const [{ name }] = await t.db.query<{ name: string }>('SELECT current_database() AS name');
    const other = new ServerDatabase(serverConnection(name));
    try {
      const looks = await Promise.all([reapLostNodes(t.db, t.services.runKinds, 'test-node', 60), reapLostNodes(other, t.services.runKinds, 'other-node', 60)]);
      assert.deepEqual(looks.flatMap((l) => l.unavailable), ['ghost']);
      assert.deepEqual(looks.flatMap((l) => l.failed.map((r) => r.id)).sort((x, y) => x - y), running);
      assert.deepEqual(looks.flatMap((l) => l.requeued.map((r) => r.id)).sort((x, y) => x - y), jobs.slice(2));
    } finally {
      await other.close();
    }
    for (const id of jobs.slice(2)) assert.equal((await waitForRun(t, `/api/v2/jobs/${id}/`)).status, 'successful');
    for (const id of running) assert.equal((await t.get(`/api/v2/jobs/${id}/`)).body.status, 'failed');
  });

  it('refuses heartbeat settings out of range and keeps the stored ones', async () => {
    for (const body of [{ CLUSTER_NODE_HEARTBEAT_PERIOD: 0 }, { CLUSTER_NODE_HEARTBEAT_PERIOD: 'soon' }, { CLUSTER_NODE_MISSED_HEARTBEAT_TOLERANCE: 0 }]) {
      const res = await t.patch('/api/v2/settings/system/', body);
      assert.equal(res.status, 400, res.text);
      assert.ok(res.body[Object.keys(body)[0]], res.text);
    }
    const system = (await t.get('/api/v2/settings/system/')).body;
    assert.equal(system.CLUSTER_NODE_HEARTBEAT_PERIOD, 30);
    assert.equal(system.CLUSTER_NODE_MISSED_HEARTBEAT_TOLERANCE, 2);
  });
});
