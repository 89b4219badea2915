// What a job costs a cluster of 1, 2 and 3 Drover nodes on one PostgreSQL (docs/cluster.md): each
// node's own CPU milliseconds and the database statements (drover_db_statements_total of every
// node) per launched-and-finished job, and the time statements waited on a lock another session
// held (pg_stat_activity sampled), with one node as the baseline of the same run. This machine's
// cores are shared by every node, so throughput cannot grow here; the cost per job should stay
// flat as nodes are added. Last, the statement rate the database sustains here, and what it
// carries in jobs per second at the measured statements per job.
//
//   POSTGRES_HOST=127.0.0.1 npm run bench:scale-out
//
// Knobs (environment): BENCH_JOBS (30 jobs per cluster size), BENCH_NODES (3: sizes 1 to N),
// BENCH_RATE_SECONDS (5, the statement rate's measurement). It only prints figures.
import { randomBytes } from 'node:crypto';
import { readFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { spawnService, type ServiceProcess } from '../test/helpers/service-process.ts';
import { intEnv } from './lib/options.ts';
import { table } from './lib/stats.ts';

const JOBS = intEnv('BENCH_JOBS', 30);
const MAX_NODES = intEnv('BENCH_NODES', 3);
const RATE_SECONDS = intEnv('BENCH_RATE_SECONDS', 5);
const ADMIN = { username: 'admin', password: `bench-${randomBytes(6).toString('hex')}` };
const PLAYBOOK = '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug:\n        msg: scale-out\n';
const LOCK_SAMPLE_MS = 10;
const TICKS_PER_SECOND = 100;

if (!process.env.POSTGRES_HOST) throw new Error('bench:scale-out runs nodes on a PostgreSQL server: set POSTGRES_HOST');
const connection = (database: string) => ({
  host: process.env.POSTGRES_HOST, port: Number(process.env.POSTGRES_PORT ?? 5432),
  user: process.env.POSTGRES_USER ?? 'postgres', password: process.env.POSTGRES_PASSWORD ?? 'unused', database,
});

async function admin<T>(fn: (client: pg.Client) => Promise<T>, database = 'postgres'): Promise<T> {
  const client = new pg.Client(connection(database));
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** CPU milliseconds a node's own process has used so far (not its playbooks'). */
async function cpuOf(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /, '').split(' ').map(Number);
  // After the command: state is field 3, so utime (14) and stime (15) sit at 11 and 12.
  return ((fields[11] + fields[12]) * 1000) / TICKS_PER_SECOND;
}

async function statementsOf(node: ServiceProcess): Promise<number> {
  const res = await node.api('GET', '/api/v2/metrics/?subsystemonly=1');
  if (res.status !== 200) throw new Error(`metrics: ${res.status} ${res.text.slice(0, 200)}`);
  const line = res.text.split('\n').find((l) => l.startsWith('drover_db_statements_total'));
  if (!line) throw new Error('metrics: no drover_db_statements_total');
  return Number(line.split(' ').pop());
}

/** Samples the lock waits of the database's sessions until stopped: milliseconds waited, summed over sessions. */
function sampleLockWaits(database: string): { stop(): Promise<number> } {
  let waited = 0;
  let running = true;
  const done = admin(async (client) => {
    while (running) {
      const { rows } = await client.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
        [database],
      );
      waited += rows[0].n * LOCK_SAMPLE_MS;
      await new Promise((resolve) => setTimeout(resolve, LOCK_SAMPLE_MS));
    }
  });
  return {
    async stop() {
      running = false;
      await done;
      return waited;
    },
  };
}

interface Cluster { database: string; nodes: ServiceProcess[]; dirs: string[] }

async function startCluster(size: number): Promise<Cluster> {
  const database = `drover_scaleout_${size}_${randomBytes(4).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${database}`));
  const shared = {
    POSTGRES_HOST: process.env.POSTGRES_HOST!, POSTGRES_PORT: String(connection(database).port), POSTGRES_USER: connection(database).user,
    POSTGRES_PASSWORD: connection(database).password, POSTGRES_DB: database,
    SVC_SECRET_KEY: 'scale-out-key', SVC_BROADCAST_WEBSOCKET_SECRET: 'scale-out-broadcast', SVC_ADMIN_PASSWORD: ADMIN.password,
    SVC_CSRF_TRUSTED_ORIGINS: 'https://localhost', SVC_CREATE_DEMO_DATA: 'false',
    NGINX_HTTP_PORT: '0', NGINX_HTTPS_PORT: '0', SVC_LISTEN_ADDRESS: '127.0.0.1',
  };
  const cluster: Cluster = { database, nodes: [], dirs: [] };
  // One after the other: the first migrates the database.
  for (let i = 1; i <= size; i++) {
    const dataDir = await mkdtemp(path.join(tmpdir(), `drover-scale-out-${i}-`));
    cluster.dirs.push(dataDir);
    // A manual project's directory, on every node (docs/projects.md).
    await mkdir(path.join(dataDir, 'projects', 'bench'), { recursive: true });
    await writeFile(path.join(dataDir, 'projects', 'bench', 'noop.yml'), PLAYBOOK);
    cluster.nodes.push(await spawnService({ ...shared, SVC_DATA_DIR: dataDir, SVC_NODE_NAME: `node-${i}` }, ADMIN));
  }
  return cluster;
}

async function stopCluster(cluster: Cluster): Promise<void> {
  await Promise.all(cluster.nodes.map((node) => node.stop()));
  for (const dir of cluster.dirs) await rm(dir, { recursive: true, force: true });
  await admin((client) => client.query(`DROP DATABASE IF EXISTS ${cluster.database}`));
}

async function ok(node: ServiceProcess, method: string, url: string, body?: unknown): Promise<any> {
  const res = await node.api(method, url, body);
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.body;
}

async function waitFor<T>(what: string, check: () => Promise<T | null>, timeoutMs = 300_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A template of the manual project on a local inventory, able to run many at once. */
async function prepare(cluster: Cluster): Promise<number> {
  const first = cluster.nodes[0];
  await waitFor('every node ready', async () => {
    const instances = (await ok(first, 'GET', '/api/v2/instances/')).results as { node_state: string; capacity: number }[];
    return instances.length === cluster.nodes.length && instances.every((i) => i.node_state === 'ready' && i.capacity > 0) ? true : null;
  });
  const org = (await ok(first, 'POST', '/api/v2/organizations/', { name: 'scale-out' })).id;
  const inventory = (await ok(first, 'POST', '/api/v2/inventories/', { name: 'local', organization: org })).id;
  await ok(first, 'POST', `/api/v2/inventories/${inventory}/hosts/`, { name: 'localhost', variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' });
  // Heartbeats every 2 seconds, so that every node soon records that it holds the manual project's directory.
  await ok(first, 'PATCH', '/api/v2/settings/system/', { CLUSTER_NODE_HEARTBEAT_PERIOD: 2 });
  const project = (await ok(first, 'POST', '/api/v2/projects/', { name: 'bench', organization: org, local_path: 'bench' })).id;
  return (await ok(first, 'POST', '/api/v2/job_templates/', { name: 'noop', project, inventory, playbook: 'noop.yml', allow_simultaneous: true })).id;
}

/** Launches `count` jobs, spread over the nodes' APIs, and waits for all to end; each must succeed. */
async function launchAll(cluster: Cluster, template: number, count: number): Promise<{ jobs: number[]; byNode: Map<string, number> }> {
  const jobs: number[] = [];
  for (let i = 0; i < count; i++) jobs.push((await ok(cluster.nodes[i % cluster.nodes.length], 'POST', `/api/v2/job_templates/${template}/launch/`, {})).id);
  const first = cluster.nodes[0];
  const ended = await waitFor('the jobs to end', async () => {
    const page = await ok(first, 'GET', `/api/v2/jobs/?id__in=${jobs.join(',')}&status__in=successful,failed,error,canceled&page_size=200`);
    return page.count === jobs.length ? (page.results as { id: number; status: string; execution_node: string; job_explanation: string }[]) : null;
  });
  const failed = ended.filter((job) => job.status !== 'successful');
  if (failed.length) throw new Error(`jobs did not succeed: ${failed.slice(0, 3).map((j) => `${j.id} ${j.status} on ${j.execution_node}: ${j.job_explanation}`).join('; ')}`);
  const byNode = new Map<string, number>();
  for (const job of ended) byNode.set(job.execution_node, (byNode.get(job.execution_node) ?? 0) + 1);
  return { jobs, byNode };
}

interface Figures { size: number; cpu: number[]; statements: number; lockWait: number; seconds: number; spread: string }

async function measure(size: number): Promise<Figures> {
  console.log(`\n== ${size} node${size > 1 ? 's' : ''}: starting...`);
  const cluster = await startCluster(size);
  try {
    const template = await prepare(cluster);
    // Warm-up, until every node has run a job: a node learns of the manual project's directory at its next heartbeat.
    const warmed = new Set<string>();
    await waitFor('a job on every node', async () => {
      for (const node of (await launchAll(cluster, template, size * 2)).byNode.keys()) warmed.add(node);
      return warmed.size === size ? true : null;
    }, 120_000);
    const pids = cluster.nodes.map((node) => node.child.pid!);
    const cpuBefore = await Promise.all(pids.map(cpuOf));
    const statementsBefore = await Promise.all(cluster.nodes.map(statementsOf));
    const locks = sampleLockWaits(cluster.database);
    const started = performance.now();
    const { byNode } = await launchAll(cluster, template, JOBS);
    const seconds = (performance.now() - started) / 1000;
    const lockWait = await locks.stop();
    const cpuAfter = await Promise.all(pids.map(cpuOf));
    const statementsAfter = await Promise.all(cluster.nodes.map(statementsOf));
    const statements = statementsAfter.reduce((sum, n, i) => sum + n - statementsBefore[i], 0);
    const figures: Figures = {
      size,
      cpu: cpuAfter.map((after, i) => (after - cpuBefore[i]) / JOBS),
      statements: statements / JOBS,
      lockWait: lockWait / JOBS,
      seconds,
      spread: [...byNode.entries()].sort().map(([node, n]) => `${node}: ${n}`).join(', '),
    };
    console.log(`   ${JOBS} jobs in ${seconds.toFixed(1)} s (${figures.spread})`);
    return figures;
  } finally {
    await stopCluster(cluster);
  }
}

/** Statements per second the database answers here: one indexed read each, from 8 connections at once. */
async function statementRate(): Promise<number> {
  const database = `drover_scaleout_rate_${randomBytes(4).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${database}`));
  try {
    await admin((client) => client.query('CREATE TABLE t (id integer PRIMARY KEY, v text); INSERT INTO t SELECT n, md5(n::text) FROM generate_series(1, 100000) AS n'), database);
    const pool = new pg.Pool({ ...connection(database), max: 8 });
    let count = 0;
    const until = performance.now() + RATE_SECONDS * 1000;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (performance.now() < until) {
        await pool.query({ name: 'read', text: 'SELECT v FROM t WHERE id = $1', values: [1 + (count % 100000)] });
        count++;
      }
    }));
    await pool.end();
    return count / RATE_SECONDS;
  } finally {
    await admin((client) => client.query(`DROP DATABASE IF EXISTS ${database}`));
  }
}

console.log('Drover scale-out benchmark');
console.log(`  ${JOBS} jobs per cluster size (one debug task on localhost), launched through every node's API; 1 to ${MAX_NODES} nodes on one PostgreSQL; Node ${process.version}`);
const results: Figures[] = [];
for (let size = 1; size <= MAX_NODES; size++) results.push(await measure(size));
const rate = await statementRate();

console.log('\n### Per launched-and-finished job (1 node: the baseline)');
console.log(table(
  ['nodes', 'CPU ms per node', 'CPU ms, all nodes', 'statements', 'lock wait ms', 'jobs/s here', 'jobs per node'],
  results.map((r) => [
    String(r.size),
    r.cpu.map((c) => c.toFixed(1)).join(' / '),
    r.cpu.reduce((a, b) => a + b, 0).toFixed(1),
    r.statements.toFixed(1),
    r.lockWait.toFixed(1),
    (JOBS / r.seconds).toFixed(2),
    r.spread,
  ]),
));
console.log(`\nThe database here answers ${Math.round(rate).toLocaleString('en')} simple statements per second (8 connections, ${RATE_SECONDS} s).`);
for (const r of results) console.log(`  at ${r.statements.toFixed(1)} statements a job (${r.size} node${r.size > 1 ? 's' : ''}): about ${Math.round(rate / r.statements).toLocaleString('en')} jobs per second before the database is the limit`);
