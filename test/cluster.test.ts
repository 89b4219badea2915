// A cluster: three real service processes on one PostgreSQL database, each with its own data
// directory, with a heartbeat period of three seconds (the settings file). Jobs spread over the nodes
// and run the revision synced through another node; one node streams a job another runs; a
// schedule fires once for its slot; one node is killed with SIGKILL while it runs a job and comes back;
// a cancel crosses nodes; a node is deprovisioned while it runs a job (docs/cluster.md).
// PostgreSQL only: the embedded database serves one process.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import WebSocket from 'ws';
import { randomBytes } from 'node:crypto';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadEnvConfig } from '../src/config/env.ts';
import { serverMode } from './helpers/database.ts';
import { LOCAL_VARIABLES, rruleIn } from './helpers/factories.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually } from './helpers/jobs.ts';
import { spawnService, type ServiceProcess } from './helpers/service-process.ts';
import { manage, standaloneValues } from './helpers/standalone.ts';

const PERIOD_SECONDS = 3;
const TOLERANCE = 2;
const UNRESPONSIVE = 'Another cluster node has determined this instance to be unresponsive';
const sleepPlaybook = (seconds: number) => `- hosts: all\n  gather_facts: false\n  tasks:\n    - command: sleep ${seconds}\n`;
// A playbook name of its own, to find this run's processes among everyone else's.
const STALL_PLAYBOOK = `stall-${randomBytes(4).toString('hex')}.yml`;
const KILLED_PLAYBOOK = `killed-${randomBytes(4).toString('hex')}.yml`;
const SPREAD_JOBS = 30;
// Prints the revision's message: which commit a node ran is read from the output.
const sitePlay = (message: string) => `- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg="content={{ '${message}' }}"\n`;
const COUNT = '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg="item {{ item }}"\n      loop: "{{ range(12) | list }}"\n';
const ansibleProcesses = (playbook: string) =>
  execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(playbook));
const HELLO = '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hello\n';

describe('node health across three nodes on one PostgreSQL', { skip: !serverMode() && 'needs a PostgreSQL server' }, () => {
  const nodes = new Map<string, ServiceProcess>();
  const dirs: string[] = [];
  let values: Record<string, string> = {};
  let admin = { username: 'admin', password: '' };
  const ids: Record<string, number> = {};
  let repo: GitRepository;
  // The schedule's slot: set in before(), checked by the last test, once the slot is past.
  let scheduleSlot = 0;

  const start = async (name: string, dataDir: string) => {
    await manualProject(dataDir);
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
  const finished = (via: ServiceProcess, id: number, timeoutMs = 90_000, kind = 'jobs') =>
    eventually(async () => {
      const row = await ok(via, 'GET', `/api/v2/${kind}/${id}/`);
      return ['successful', 'failed', 'error', 'canceled'].includes(row.status) ? row : null;
    }, timeoutMs, `job ${id} to finish`);
  const runningOn = (via: ServiceProcess, id: number, hostname: string) =>
    eventually(async () => {
      const row = await job(via, id);
      assert.ok(['pending', 'waiting', 'running'].includes(row.status), `job ${id} ended early: ${row.status} ${row.job_explanation}`);
      return row.status === 'running' && row.execution_node === hostname ? row : null;
    }, 60_000, `job ${id} running on ${hostname}`);

  // Each node has its own data directory, its projects root in it (docs/cluster.md); the manual
  // project's directory is put on every node.
  const manualProject = async (dataDir: string) => {
    const dir = path.join(dataDir, 'projects', 'cluster');
    await mkdir(dir, { recursive: true });
    const files = { 'sleep.yml': sleepPlaybook(300), 'short.yml': sleepPlaybook(4), 'hello.yml': HELLO, [STALL_PLAYBOOK]: sleepPlaybook(300), [KILLED_PLAYBOOK]: sleepPlaybook(300), 'count.yml': COUNT };
    for (const [name, content] of Object.entries(files)) await writeFile(path.join(dir, name), content);
  };

  before(async () => {
    repo = await makeRepository({ 'site.yml': sitePlay('first') });
    const settingsDir = await mkdtemp(path.join(tmpdir(), 'drover-cluster-settings-'));
    dirs.push(settingsDir);
    const settingsFile = path.join(settingsDir, 'settings.yaml');
    await writeFile(
      settingsFile,
      `CLUSTER_NODE_HEARTBEAT_PERIOD: ${PERIOD_SECONDS}\nCLUSTER_NODE_MISSED_HEARTBEAT_TOLERANCE: ${TOLERANCE}\nPROJECT_LOCAL_SOURCE_DIRS: [${JSON.stringify(repo.root)}]\n`,
    );
    const standalone = await standaloneValues('nodehealth', {
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
    for (const name of ['node-a', 'node-b', 'node-c']) {
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
    ids.sleepOnB = await template('Sleep on B', KILLED_PLAYBOOK, [ids['group-node-b']]);
    ids.stallOnB = await template('Stall on B', STALL_PLAYBOOK, [ids['group-node-b']]);
    ids.sleepOnC = await template('Sleep on C', 'sleep.yml', [ids['group-node-c']]);
    ids.shortOnC = await template('Short on C', 'short.yml', [ids['group-node-c']]);
    ids.helloPreferB = await template('Hello, B first', 'hello.yml', [ids['group-node-b'], defaultGroup]);
    ids.helloPreferC = await template('Hello, C first', 'hello.yml', [ids['group-node-c'], defaultGroup]);
    ids.countOnA = await template('Count on A', 'count.yml', [ids['group-node-a']]);
    ids.helloOnA = await template('Hello on A', 'hello.yml', [ids['group-node-a']]);
    const site = await ok(a, 'POST', '/api/v2/projects/', { name: 'Site', organization: org.id, scm_type: 'git', scm_url: `file://${repo.bare}` });
    ids.siteProject = site.id;
    const firstSync = await eventually(async () => (await ok(a, 'GET', `/api/v2/project_updates/?project=${site.id}`)).results[0]?.id ?? null, 30_000, 'the first sync');
    const siteUpdate = await finished(a, firstSync, 120_000, 'project_updates');
    assert.equal(siteUpdate.status, 'successful', siteUpdate.job_explanation);
    ids.site = (await ok(a, 'POST', '/api/v2/job_templates/', { name: 'Site', project: site.id, inventory: inventory.id, playbook: 'site.yml', allow_simultaneous: true })).id;
    // One slot, claimed by whichever node sees it due first; its run goes to node-a, away from the
    // nodes the tests below kill and remove.
    const rrule = rruleIn(5, 'FREQ=MINUTELY;INTERVAL=1;COUNT=1');
    scheduleSlot = Date.parse(rrule.replace(/^DTSTART:(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z.*$/, '$1-$2-$3T$4:$5:$6Z'));
    await ok(a, 'POST', '/api/v2/schedules/', { name: 'Once', unified_job_template: ids.helloOnA, rrule });
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
    await repo?.remove();
  });

  it(`spreads ${SPREAD_JOBS} jobs over the three nodes, each running the commit synced through node-a, read from its output`, async () => {
    const a = node('node-a');
    const sha = await repo.commit({ 'site.yml': sitePlay('second') });
    const update = await finished(a, (await ok(a, 'POST', `/api/v2/projects/${ids.siteProject}/update/`, {})).id, 120_000, 'project_updates');
    assert.equal(update.status, 'successful', update.job_explanation);
    assert.equal(update.scm_revision, sha);
    const via = [a, node('node-b'), node('node-c')];
    const launched = await Promise.all(Array.from({ length: SPREAD_JOBS }, (_, i) => launch(via[i % 3], ids.site)));
    const jobs = await Promise.all(launched.map((id) => finished(a, id, 180_000)));
    const perNode = new Map<string, number>();
    for (const row of jobs) {
      assert.equal(row.status, 'successful', `job ${row.id} on ${row.execution_node}: ${row.job_explanation} ${row.result_traceback}`);
      assert.equal(row.scm_revision, sha);
      const stdout = await via[row.id % 3].api('GET', `/api/v2/jobs/${row.id}/stdout/?format=txt`);
      assert.match(stdout.text, /content=second/, `job ${row.id} on ${row.execution_node} ran the new commit`);
      assert.doesNotMatch(stdout.text, /content=first/);
      perNode.set(row.execution_node, (perNode.get(row.execution_node) ?? 0) + 1);
    }
    assert.deepEqual([...perNode.keys()].sort(), ['node-a', 'node-b', 'node-c'], `jobs per node: ${JSON.stringify([...perNode])}`);
  });

  it("node-c streams the events of a job node-a runs, every one once and in order", async () => {
    const a = node('node-a');
    const c = node('node-c');
    const socket = new WebSocket(`${c.url.replace(/^http/, 'ws')}/websocket/`, {
      headers: { authorization: `Basic ${Buffer.from(`${admin.username}:${admin.password}`).toString('base64')}` },
    });
    const messages: any[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(data.toString())));
    try {
      await eventually(async () => messages.some((m) => m.accept === true), 30_000, 'the socket to be accepted');
      const id = await launch(a, ids.countOnA);
      socket.send(JSON.stringify({ groups: { job_events: [id] } }));
      const ran = await finished(a, id);
      assert.equal(ran.status, 'successful', ran.job_explanation);
      assert.equal(ran.execution_node, 'node-a');
      const eof = await eventually(async () => messages.find((m) => m.event === 'EOF' && m.job === id) ?? null, 30_000, 'the end of the stream');
      const stored = (await ok(c, 'GET', `/api/v2/jobs/${id}/job_events/?page_size=200&order_by=counter`)).results;
      assert.equal(eof.final_counter, stored.at(-1).counter);
      const counters = messages.filter((m) => m.type === 'job_event' && m.job === id).map((m) => m.counter);
      // Subscribed just after the launch: what it missed before is the REST list's to give.
      assert.ok(counters.length >= 12, `${counters.length} events streamed`);
      assert.ok(!messages.some((m) => m.event === 'events_skipped'), 'under the rate at which a client is sent fewer');
      assert.deepEqual(counters, stored.map((e: any) => e.counter).slice(-counters.length), 'the stored events from where it joined, once each, in order');
    } finally {
      socket.close();
    }
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
    await eventually(async () => ansibleProcesses(KILLED_PLAYBOOK).length === 0, 10_000, 'the killed node\'s playbook to end with it');
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
    const stallProcesses = () => ansibleProcesses(STALL_PLAYBOOK);
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

  it('a schedule fires once for its slot, whichever nodes see it due', async () => {
    const a = node('node-a');
    const schedule = (await ok(a, 'GET', '/api/v2/schedules/?name=Once')).results[0];
    const runs = await eventually(async () => {
      const list = (await ok(a, 'GET', `/api/v2/schedules/${schedule.id}/jobs/?order_by=id`)).results;
      return list.length >= 1 && list.every((r: any) => r.status === 'successful') ? list : null;
    }, Math.max(scheduleSlot - Date.now(), 0) + 60_000, 'the slot to run');
    assert.equal((await ok(a, 'GET', `/api/v2/schedules/${schedule.id}/`)).next_run, null, 'no slot left');
    // A second claim of the slot would have launched at the same moment as the first.
    assert.equal(runs.length, 1, `runs: ${JSON.stringify(runs.map((r: any) => [r.id, r.created]))}`);
    assert.ok(Date.parse(runs[0].created) >= scheduleSlot, 'it ran at its slot');
  });
});
