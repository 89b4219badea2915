// Launch API throughput: POST /api/v2/job_templates/{id}/launch/ at a fixed concurrency over real HTTP
// on loopback (keep-alive), with execution paused (no dispatcher: the jobs stay pending). A GET of the
// same template at the same concurrency is the baseline of the same run. Last, the template's
// organization is made a tenant with generous quotas (nothing refused) and the launches measured again:
// what the tenant quota gate costs (the usage row lock and the counts) beside the launches without it.
//
//   npm run bench:launch-api                   PGlite, or PostgreSQL when POSTGRES_HOST is set
//   npm run bench:launch-api -- --db=both      both
//
// BENCH_CONCURRENCY (20) and BENCH_SECONDS (30) set the load; BENCH_WARMUP_SECONDS (3) precedes each.
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import type { TestApp } from '../test/helpers/app.ts';
import { ADMIN, basicAuth } from '../test/helpers/app.ts';
import { buildApp } from '../src/server/app.ts';
import { appOn } from './lib/app.ts';
import { makeTenant } from '../test/helpers/quota.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { ms, percentile, table } from './lib/stats.ts';

const CONCURRENCY = intEnv('BENCH_CONCURRENCY', 20);
const SECONDS = intEnv('BENCH_SECONDS', 30);
const WARMUP_SECONDS = intEnv('BENCH_WARMUP_SECONDS', 3);

interface Load {
  count: number;
  errors: number;
  seconds: number;
  p50: number;
  p99: number;
  /** CPU time of this process (server and client) per request, in ms. */
  cpu: number;
}

/** Sends `method path` from CONCURRENCY clients (client i to pathOf(i)), each waiting for its answer, for `seconds`. */
async function load(port: number, method: string, pathOf: (client: number) => string, seconds: number, expect: number): Promise<Load> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const headers = { authorization: basicAuth(ADMIN), 'content-type': 'application/json' };
  const body = method === 'POST' ? '{}' : undefined;
  const latencies: number[] = [];
  let errors = 0;
  const one = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      });
      req.once('error', reject);
      req.end(body);
    });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const until = started + seconds * 1000;
  const client = async (index: number) => {
    const path = pathOf(index);
    while (performance.now() < until) {
      const sent = performance.now();
      const status = await one(path).catch(() => 0);
      latencies.push(performance.now() - sent);
      if (status !== expect) errors++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, i) => client(i)));
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, errors, seconds: elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99), cpu: (cpu.user + cpu.system) / 1000 / latencies.length };
}

/** Job templates on one project and inventory (10 hosts) with a machine credential; answers their ids. */
async function setUp(t: TestApp, count: number): Promise<number[]> {
  const org = (await t.get('/api/v2/organizations/Default/')).body.id;
  // A manual project: the template needs a playbook in the project's directory.
  const dir = `${t.env.projectsRoot}/bench`;
  await mkdir(dir, { recursive: true });
  await writeFile(`${dir}/hello.yml`, '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hello\n');
  const project = await t.post('/api/v2/projects/', { name: 'Bench', organization: org, local_path: 'bench' });
  if (project.status !== 201) throw new Error(`project: ${project.text}`);
  const inventory = (await t.post('/api/v2/inventories/', { name: 'Bench', organization: org })).body.id;
  for (let h = 0; h < 10; h++) await t.post('/api/v2/hosts/', { name: `host${h}`, inventory });
  const credentialType = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
  const credential = (await t.post('/api/v2/credentials/', { name: 'Bench', credential_type: credentialType, organization: org, inputs: { username: 'bench' } })).body.id;
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const template = await t.post('/api/v2/job_templates/', { name: `Bench ${i}`, project: project.body.id, inventory, playbook: 'hello.yml', allow_simultaneous: true });
    if (template.status !== 201) throw new Error(`template: ${template.text}`);
    await t.post(`/api/v2/job_templates/${template.body.id}/credentials/`, { id: credential });
    ids.push(template.body.id);
  }
  return ids;
}

/** The same services served over HTTP without a dispatcher, so launched jobs stay pending. */
async function listen(t: TestApp): Promise<{ app: FastifyInstance; port: number }> {
  await t.app.close();
  const app = await buildApp(t.services, { dispatcher: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as { port: number }).port };
}

async function runOn(choice: DbChoice) {
  const t = await appOn(choice);
  try {
    const [{ server_version: version }] = await t.db.query<{ server_version: string }>('SHOW server_version');
    const templateIds = await setUp(t, CONCURRENCY);
    const { app, port } = await listen(t);
    try {
      const one = () => `/api/v2/job_templates/${templateIds[0]}/`;
      const own = (client: number) => `/api/v2/job_templates/${templateIds[client]}/`;
      await load(port, 'GET', one, WARMUP_SECONDS, 200);
      const baseline = await load(port, 'GET', one, SECONDS, 200);
      await load(port, 'POST', () => `${one()}launch/`, WARMUP_SECONDS, 201);
      const launches = await load(port, 'POST', () => `${one()}launch/`, SECONDS, 201);
      const spread = await load(port, 'POST', (c) => `${own(c)}launch/`, SECONDS, 201);
      // Every quota limited, none reached: each launch locks the usage row and counts runs and hosts.
      // The earlier measures' runs are ended first, as a dispatcher would have run them: the gate
      // counts the organization's active runs, and these would be tens of thousands of them.
      await t.db.query(`UPDATE unified_jobs SET status = 'canceled', finished = now() WHERE status IN ('new', 'pending')`);
      const [{ id: org }] = await t.db.query<{ id: number }>(`SELECT id FROM organizations WHERE name = 'Default'`);
      await makeTenant(t, org, { max_concurrent_jobs: 1_000_000_000, max_daily_launches: 1_000_000_000, max_hosts: 1_000_000, max_storage_mb: 1_000_000 });
      await load(port, 'POST', () => `${one()}launch/`, WARMUP_SECONDS, 201);
      const quota = await load(port, 'POST', () => `${one()}launch/`, SECONDS, 201);
      return { choice, version, baseline, launches, spread, quota };
    } finally {
      await app.close();
    }
  } finally {
    await t.db.close();
  }
}

console.log(`Drover launch API benchmark: concurrency ${CONCURRENCY}, ${SECONDS} s per measure, keep-alive HTTP on loopback, no dispatcher`);
console.log(`  Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), load average ${os.loadavg()[0].toFixed(1)}`);
const rows: string[][] = [];
for (const choice of databases()) {
  const r = await runOn(choice);
  const db = `${r.choice === 'postgres' ? 'PostgreSQL' : 'PGlite'} ${r.version.split(' ')[0]}`;
  const measures = [
    ['GET template (baseline)', r.baseline], ['POST launch, one template', r.launches], ['POST launch, a template per client', r.spread],
    ['POST launch, tenant quota gate on', r.quota],
  ] as const;
  for (const [what, m] of measures) rows.push([`${db}: ${what}`, (m.count / m.seconds).toFixed(0), ms(m.p50), ms(m.p99), m.cpu.toFixed(2), String(m.errors)]);
}
console.log(table(['requests', 'per second', 'p50 ms', 'p99 ms', 'CPU ms/request', 'errors'], rows));
console.log('CPU ms/request: CPU time of this one process (the service and the load generator) per request.');
console.log('Goal: on PostgreSQL, >= 500 launches/s with p99 < 50 ms.');
