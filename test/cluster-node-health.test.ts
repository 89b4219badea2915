// Node health across a cluster: three real service processes on one PostgreSQL database, with a
// heartbeat period of two seconds (the settings file), sharing a projects root. One node is killed
// with SIGKILL while it runs a job and comes back; a cancel crosses nodes; a node is deprovisioned
// while it runs a job. PostgreSQL only: the embedded database serves one process.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadEnvConfig } from '../src/config/env.ts';
import { serverMode } from './helpers/database.ts';
import { LOCAL_VARIABLES } from './helpers/factories.ts';
import { eventually } from './helpers/jobs.ts';
import { spawnService, type ServiceProcess } from './helpers/service-process.ts';
import { manage, standaloneValues } from './helpers/standalone.ts';

const PERIOD_SECONDS = 2;
const TOLERANCE = 2;
const UNRESPONSIVE = 'Another cluster node has determined this instance to be unresponsive';
const sleepPlaybook = (seconds: number) => `- hosts: all\n  gather_facts: false\n  tasks:\n    - command: sleep ${seconds}\n`;
// A playbook name of its own, to find this run's processes among everyone else's.
const STALL_PLAYBOOK = `stall-${randomBytes(4).toString('hex')}.yml`;
const HELLO = '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hello\n';

describe('node health across three nodes on one PostgreSQL', { skip: !serverMode() && 'needs a PostgreSQL server' }, () => {
  const nodes = new Map<string, ServiceProcess>();
  const dirs: string[] = [];
  let values: Record<string, string> = {};
  let admin = { username: 'admin', password: '' };
  const ids: Record<string, number> = {};

  const start = async (name: string, dataDir: string) => {
    const node = await spawnService({ ...values, SVC_DATA_DIR: dataDir, SVC_NODE_NAME: name }, admin);
    nodes.set(name, node);
    return node;
  };
  const node = (name: string) => nodes.get(name)!;
  const ok = async (service: ServiceProcess, method: string, url: string, body?: unknown) => {
    const res = await service.api(method, url, body);
    assert.ok(res.status >= 200 && res.status < 300, `${method} ${url}: ${res.status} ${res.text}`);
    return res.body;
  };
  const instance = async (via: ServiceProcess, hostname: string) =>
    (await ok(via, 'GET', `/api/v2/instances/?hostname=${hostname}`)).results[0];
  const launch = async (via: ServiceProcess, template: number) => (await ok(via, 'POST', `/api/v2/job_templates/${template}/launch/`, {})).job as number;
  const job = (via: ServiceProcess, id: number) => ok(via, 'GET', `/api/v2/jobs/${id}/`);
  const finished = (via: ServiceProcess, id: number, timeoutMs = 90_000) =>
    eventually(async () => {
      const row = await job(via, id);
      return ['successful', 'failed', 'error', 'canceled'].includes(row.status) ? row : null;
    }, timeoutMs, `job ${id} to finish`);
  const runningOn = (via: ServiceProcess, id: number, hostname: string) =>
    eventually(async () => {
      const row = await job(via, id);
      assert.ok(['pending', 'waiting', 'running'].includes(row.status), `job ${id} ended early: ${row.status} ${row.job_explanation}`);
      return row.status === 'running' && row.execution_node === hostname ? row : null;
    }, 60_000, `job ${id} running on ${hostname}`);

  before(async () => {
    const projectsRoot = await mkdtemp(path.join(tmpdir(), 'drover-cluster-projects-'));
    dirs.push(projectsRoot);
    await mkdir(path.join(projectsRoot, 'cluster'));
    await writeFile(path.join(projectsRoot, 'cluster', 'sleep.yml'), sleepPlaybook(300));
    await writeFile(path.join(projectsRoot, 'cluster', 'short.yml'), sleepPlaybook(4));
    await writeFile(path.join(projectsRoot, 'cluster', 'hello.yml'), HELLO);
    await writeFile(path.join(projectsRoot, 'cluster', STALL_PLAYBOOK), sleepPlaybook(300));
    const settingsFile = path.join(projectsRoot, '..', `${path.basename(projectsRoot)}-settings.yaml`);
    await writeFile(settingsFile, `CLUSTER_NODE_HEARTBEAT_PERIOD: ${PERIOD_SECONDS}\nCLUSTER_NODE_MISSED_HEARTBEAT_TOLERANCE: ${TOLERANCE}\n`);
    dirs.push(settingsFile);
    const standalone = await standaloneValues('nodehealth', {
      SVC_PROJECTS_ROOT: projectsRoot,
      SVC_SETTINGS_FILE: settingsFile,
      SVC_LISTEN_ADDRESS: '127.0.0.1',
      SVC_CREATE_DEMO_DATA: 'false',
      SVC_LOG_LEVEL: 'warn',
      NGINX_HTTP_PORT: '0',
      NGINX_HTTPS_PORT: '0',
    });
    values = standalone.values;
    admin = { username: 'admin', password: values.SVC_ADMIN_PASSWORD };
    // The first node makes the schema; the others join it.
    await start('node-a', standalone.dataDir);
    const more = await Promise.all(['node-b', 'node-c'].map((name) => mkdtemp(path.join(tmpdir(), `drover-${name}-`))));
    dirs.push(...more);
    await Promise.all([start('node-b', more[0]), start('node-c', more[1])]);

    const a = node('node-a');
    for (const name of ['node-b', 'node-c']) {
      ids[`group-${name}`] = (await ok(a, 'POST', '/api/v2/instance_groups/', { name: `only-${name}`, policy_instance_list: [name] })).id;
    }
    const org = await ok(a, 'GET', '/api/v2/organizations/Default/');
    const project = await ok(a, 'POST', '/api/v2/projects/', { name: 'Cluster', organization: org.id, local_path: 'cluster' });
    const inventory = await ok(a, 'POST', '/api/v2/inventories/', { name: 'Here', organization: org.id, variables: LOCAL_VARIABLES });
    await ok(a, 'POST', '/api/v2/hosts/', { name: 'localhost', inventory: inventory.id });
    const template = async (name: string, playbook: string, groups: number[]) => {
      const created = await ok(a, 'POST', '/api/v2/job_templates/', { name, project: project.id, inventory: inventory.id, playbook, allow_simultaneous: true });
      for (const id of groups) await ok(a, 'POST', `/api/v2/job_templates/${created.id}/instance_groups/`, { id });
      return created.id as number;
    };
    const defaultGroup = (await ok(a, 'GET', '/api/v2/instance_groups/?name=default')).results[0].id;
    ids.default = defaultGroup;
    ids.sleepOnB = await template('Sleep on B', 'sleep.yml', [ids['group-node-b']]);
    ids.stallOnB = await template('Stall on B', STALL_PLAYBOOK, [ids['group-node-b']]);
    ids.sleepOnC = await template('Sleep on C', 'sleep.yml', [ids['group-node-c']]);
    ids.shortOnC = await template('Short on C', 'short.yml', [ids['group-node-c']]);
    ids.helloPreferB = await template('Hello, B first', 'hello.yml', [ids['group-node-b'], defaultGroup]);
    ids.helloPreferC = await template('Hello, C first', 'hello.yml', [ids['group-node-c'], defaultGroup]);
    // Every node has registered and joined its group.
    await eventually(async () => {
      const groups = await ok(a, 'GET', '/api/v2/instance_groups/');
      return groups.results.every((g: any) => g.instances > 0 && g.capacity > 0);
    }, 30_000, 'every group to hold a node with capacity');
  });

  after(async () => {
    for (const service of nodes.values()) {
      if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill('SIGKILL');
      await service.stop();
    }
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('a killed node becomes unavailable with capacity 0; its running job fails naming it within two heartbeat periods; a job given to it meanwhile runs elsewhere', async () => {
    const a = node('node-a');
    const c = node('node-c');
    const running = await launch(a, ids.sleepOnB);
    await runningOn(a, running, 'node-b');
    const [defaultBefore] = (await ok(a, 'GET', '/api/v2/ping/')).instance_groups.filter((g: any) => g.name === 'default');

    const killedAt = Date.now();
    node('node-b').child.kill('SIGKILL');
    await node('node-b').stop();
    // Placed while node-b still looks alive: the first group (node-b alone) takes it.
    const given = await launch(c, ids.helloPreferB);

    const failed = await finished(c, running, 30_000);
    const elapsedMs = Date.now() - killedAt;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.job_explanation, 'Task was marked as running but its node node-b stopped sending heartbeats, so it has been marked as failed.');
    // Lost at two periods after its last heartbeat (before the kill); one more second for the polling here and a loaded machine.
    assert.ok(elapsedMs < (TOLERANCE * PERIOD_SECONDS + 1) * 1000, `failed ${elapsedMs} ms after the kill`);

    const requeued = await finished(a, given);
    assert.equal(requeued.status, 'successful', requeued.result_traceback || requeued.job_explanation);
    assert.notEqual(requeued.execution_node, 'node-b');
    assert.match(requeued.job_explanation, /^Its node node-b stopped sending heartbeats before starting it, so it was queued again to run on another node\.$/);
    const events = await ok(a, 'GET', `/api/v2/jobs/${given}/job_events/?event=runner_on_ok`);
    assert.equal(events.count, 1, 'the job ran its task once, elsewhere');

    for (const via of [a, c]) {
      const b = await instance(via, 'node-b');
      assert.equal(b.node_state, 'unavailable');
      assert.equal(b.capacity, 0);
      assert.equal(b.cpu_capacity, 0);
      assert.equal(b.mem_capacity, 0);
      assert.equal(b.errors, UNRESPONSIVE);
      assert.equal(b.consumed_capacity, 0);
      assert.equal(b.jobs_running, 0);
      assert.equal(b.percent_capacity_remaining, 0);
      const ping = await ok(via, 'GET', '/api/v2/ping/');
      assert.equal(ping.instances.find((i: any) => i.node === 'node-b').capacity, 0);
      assert.equal(ping.instance_groups.find((g: any) => g.name === 'only-node-b').capacity, 0);
      const onlyB = await ok(via, 'GET', `/api/v2/instance_groups/${ids['group-node-b']}/`);
      assert.equal(onlyB.capacity, 0);
      assert.equal(onlyB.percent_capacity_remaining, 0);
      const defaultGroup = await ok(via, 'GET', `/api/v2/instance_groups/${ids.default}/`);
      const others = (await instance(via, 'node-a')).capacity + (await instance(via, 'node-c')).capacity;
      assert.equal(defaultGroup.capacity, others);
      assert.ok(defaultGroup.capacity < defaultBefore.capacity, 'the default group lost node-b\'s capacity');
    }
    // Nothing more goes to node-b: a job preferring its group runs elsewhere at once.
    const next = await finished(a, await launch(a, ids.helloPreferB));
    assert.equal(next.status, 'successful');
    assert.notEqual(next.execution_node, 'node-b');
    assert.equal(next.job_explanation, '');
  });

  it('a node that comes back is ready again with its capacity on its first heartbeat, and runs jobs', async () => {
    const a = node('node-a');
    const dataDir = dirs.find((d) => path.basename(d).startsWith('drover-node-b-'))!;
    await start('node-b', dataDir);
    const b = await instance(a, 'node-b');
    assert.equal(b.node_state, 'ready');
    assert.equal(b.errors, '');
    assert.ok(b.capacity > 0 && b.cpu_capacity > 0 && b.mem_capacity > 0, JSON.stringify(b));
    assert.equal((await ok(a, 'GET', `/api/v2/instance_groups/${ids['group-node-b']}/`)).capacity, b.capacity);
    const ran = await finished(a, await launch(a, ids.helloPreferB));
    assert.equal(ran.status, 'successful', ran.job_explanation);
    assert.equal(ran.execution_node, 'node-b');
  });

  it('a node that stalls past its grace loses its running job; once it wakes it stops that run and records nothing over the failure', async () => {
    const a = node('node-a');
    const b = node('node-b');
    const stallProcesses = () => execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(STALL_PLAYBOOK));
    const id = await launch(a, ids.stallOnB);
    await runningOn(a, id, 'node-b');
    await eventually(async () => stallProcesses().length > 0, 30_000, 'the playbook to run');
    const explanation = 'Task was marked as running but its node node-b stopped sending heartbeats, so it has been marked as failed.';
    b.child.kill('SIGSTOP');
    try {
      const failed = await finished(a, id, 30_000);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.job_explanation, explanation);
      // Whether its row is marked unavailable now depends on the moment it froze: a heartbeat's
      // transaction left open keeps the row locked, and the watches skip it (the kill test checks it).
    } finally {
      b.child.kill('SIGCONT');
    }
    await eventually(async () => (await instance(a, 'node-b')).node_state === 'ready', 30_000, 'node-b ready again');
    await eventually(async () => stallProcesses().length === 0, 30_000, 'node-b to stop the run it no longer owns');
    const job_ = await job(a, id);
    assert.deepEqual({ status: job_.status, job_explanation: job_.job_explanation }, { status: 'failed', job_explanation: explanation });
  });

  it('a cancel asked of one node stops the job another node runs', async () => {
    const a = node('node-a');
    const id = await launch(a, ids.sleepOnC);
    await runningOn(a, id, 'node-c');
    const res = await a.api('POST', `/api/v2/jobs/${id}/cancel/`);
    assert.equal(res.status, 202, res.text);
    const canceled = await finished(a, id, 30_000);
    assert.equal(canceled.status, 'canceled');
    assert.equal(canceled.execution_node, 'node-c');
    assert.ok(Number(canceled.elapsed) < 60, `canceled after ${canceled.elapsed} s, not at the end of its sleep`);
  });

  it('deprovisioning a busy node drains it: no new work, its running job finishes, then it is removed and stays removed', async () => {
    const a = node('node-a');
    const c = node('node-c');
    const busy = await launch(a, ids.shortOnC);
    await runningOn(a, busy, 'node-c');
    const env = await loadEnvConfig({ ...values, SVC_NODE_NAME: 'node-a' });
    const res = await manage(env, 'deprovision_instance', '--hostname', 'node-c');
    assert.equal(res.code, 0, res.err.join('\n'));
    assert.deepEqual(res.out, ['Instance node-c is deprovisioning: it takes no new work and is removed once its 1 active run(s) end']);
    assert.equal((await instance(a, 'node-c')).node_state, 'deprovisioning');

    const elsewhere = await finished(a, await launch(a, ids.helloPreferC));
    assert.equal(elsewhere.status, 'successful');
    assert.notEqual(elsewhere.execution_node, 'node-c');

    const drained = await finished(a, busy, 60_000);
    assert.equal(drained.status, 'successful', drained.job_explanation);
    assert.equal(drained.execution_node, 'node-c');
    await eventually(async () => (await instance(a, 'node-c')) === undefined, 30_000, 'node-c to be removed');
    await eventually(async () => c.output.join('').includes('This node (node-c) was deprovisioned'), 30_000, 'node-c to notice');
    assert.equal(await instance(a, 'node-c'), undefined, 'its heartbeat did not register it again');
    assert.deepEqual((await ok(a, 'GET', `/api/v2/instance_groups/${ids['group-node-c']}/`)).instances, 0);
  });
});
