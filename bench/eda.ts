// Event-driven automation: the public receiver under load. Signed ~1 KB events are posted by 50 clients
// on keep-alive connections (a worker thread: lib/signed-load.mjs) to five rules of 20 conditions each;
// one event in ten matches every condition and launches a job template (execution paused: no dispatcher,
// the jobs stay pending). Measured apart, then together: the 202s per second and their latency, and how
// fast every received event is evaluated (together: from the first request until no event waits). The baseline of the same run is a
// bare Fastify route on the same machine answering 202 to the same requests from the same client.
//
//   npm run bench:eda                   PGlite, or PostgreSQL when POSTGRES_HOST is set
//   npm run bench:eda -- --db=both      both
//
// BENCH_CONCURRENCY (50), BENCH_SECONDS (20), BENCH_WARMUP_SECONDS (3), BENCH_RULES (5), BENCH_MATCH_EVERY (10).
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import Fastify from 'fastify';
import type { TestApp } from '../test/helpers/app.ts';
import { buildApp } from '../src/server/app.ts';
import { eventEvaluation } from '../src/composition/loops.ts';
import { appOn } from './lib/app.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { ms, percentile, table } from './lib/stats.ts';

const CONCURRENCY = intEnv('BENCH_CONCURRENCY', 50);
const SECONDS = intEnv('BENCH_SECONDS', 20);
const WARMUP_SECONDS = intEnv('BENCH_WARMUP_SECONDS', 3);
const RULES = intEnv('BENCH_RULES', 5);
const MATCH_EVERY = intEnv('BENCH_MATCH_EVERY', 10);

/** Twenty conditions over the events lib/signed-load.mjs sends: the first holds for one event in MATCH_EVERY, the rest for all. */
const CONDITIONS = [
  'event.severity == "critical"', 'event.type == "alert"', 'event.labels.team == "ops"', 'event.count >= 5', 'event.host is defined',
  '"eu" in event.region', 'event.labels.env in ["prod", "staging"]', 'event.service | length > 0', 'event.summary | length < 2000',
  'headers["content-type"] == "application/json"', 'event.labels.tier != "db"', 'event.count < 100', 'event.labels.k3 == "v3"',
  'event.labels.k4 is defined', 'not event.suppressed', 'event.event_id | length == 36', 'event.region != "us-east-1"',
  'event.labels | length >= 3', 'event.type in ["alert", "incident"]', 'event.host | length > 5',
].map((jinja2_expression, i) => ({ jinja2_expression, description: `condition ${i + 1}` }));

interface Load {
  latencies: number[];
  errors: number;
  seconds: number;
  bodyBytes: number;
}

function load(port: number, paths: string[], key: string, seconds: number, expect: number): Promise<Load> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./lib/signed-load.mjs', import.meta.url), {
      workerData: { port, paths, key, concurrency: CONCURRENCY, seconds, matchEvery: MATCH_EVERY, expect, sign: true },
    });
    worker.once('message', (result: Load) => resolve({ ...result, latencies: result.latencies.sort((a, b) => a - b) }));
    worker.once('error', reject);
  });
}

/** A job template to launch and RULES rules aiming at it, all with one key; answers their paths and the key. */
async function setUp(t: TestApp): Promise<{ paths: string[]; key: string }> {
  const created = async (path: string, body: Record<string, unknown>) => {
    const res = await t.post(path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const org = (await created('/api/v2/organizations/', { name: 'EDA bench' })).id;
  const dir = `${t.env.projectsRoot}/eda-bench`;
  await mkdir(dir, { recursive: true });
  await writeFile(`${dir}/react.yml`, '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: var=svc_eda_event_guid\n');
  const project = (await created('/api/v2/projects/', { name: 'Reactions', organization: org, local_path: 'eda-bench' })).id;
  const inventory = (await created('/api/v2/inventories/', { name: 'Fleet', organization: org })).id;
  await created('/api/v2/hosts/', { name: 'web-1', inventory });
  const template = (await created('/api/v2/job_templates/', { name: 'React', project, inventory, playbook: 'react.yml', allow_simultaneous: true })).id;
  const paths: string[] = [];
  for (let i = 0; i < RULES; i++) {
    const rule = await created('/api/v2/event_rules/', {
      name: `Alerts ${i}`, organization: org, webhook_path: `alerts-${i}`, conditions: CONDITIONS,
      actions: [{ action_type: 'launch_job_template', target_id: template, description: 'react' }],
    });
    paths.push(new URL(rule.webhook_url, 'http://x').pathname);
  }
  // One key for all, so the load generator signs with one.
  await t.db.query('UPDATE event_rules SET webhook_key = (SELECT webhook_key FROM event_rules ORDER BY id LIMIT 1)');
  const first = (await t.get('/api/v2/event_rules/?order_by=id')).body.results[0];
  const key = (await t.get(`/api/v2/event_rules/${first.id}/webhook_key/`)).body.webhook_key as string;
  const probe = await t.post(`/api/v2/event_rules/${first.id}/test/`, {
    payload: { event_id: '00000000-0000-0000-0000-000000000000', type: 'alert', severity: 'critical', service: 's', region: 'eu-west-1', labels: { team: 'ops', tier: 'web', env: 'prod', k3: 'v3', k4: 'v4' }, count: 5, host: 'web-1.example', summary: 'x' },
    headers: { 'content-type': 'application/json' },
  });
  if (!probe.body.matched) throw new Error(`the conditions do not hold for a critical event: ${JSON.stringify(probe.body)}`);
  return { paths, key };
}

/** When no event waits any more (an EXISTS on the index of waiting events: counting them would load the database being measured). */
async function drained(t: TestApp): Promise<number> {
  for (;;) {
    const [{ waiting }] = await t.db.query<{ waiting: boolean }>("SELECT EXISTS (SELECT 1 FROM event_logs WHERE status = 'received') AS waiting");
    if (!waiting) return performance.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function runOn(choice: DbChoice) {
  const t = await appOn(choice, { dispatcher: false });
  try {
    const [{ server_version: version }] = await t.db.query<{ server_version: string }>('SHOW server_version');
    const { paths, key } = await setUp(t);
    await t.app.close();
    const app = await buildApp(t.services, { dispatcher: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    const since = async () => Number((await t.db.query<{ last: number }>('SELECT coalesce(max(id), 0)::bigint AS last FROM event_logs'))[0].last);
    const statuses = async (after: number) =>
      Object.fromEntries((await t.db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM event_logs WHERE id > $1 GROUP BY status', [after])).map((c) => [c.status, c.n]));
    const total = (byStatus: Record<string, number>) => Object.values(byStatus).reduce((a, b) => a + b, 0);
    // Apart: the receiver while nothing evaluates, then the evaluation of what it stored.
    await load(port, paths, key, WARMUP_SECONDS, 202);
    const receiverOnly = await load(port, paths, key, SECONDS, 202);
    let stopEvaluation = await eventEvaluation.start(t.services);
    const backlogStart = performance.now();
    const backlog = total(await statuses(0));
    const backlogSeconds = ((await drained(t)) - backlogStart) / 1000;
    await stopEvaluation();
    // Together: the headline figures.
    stopEvaluation = await eventEvaluation.start(t.services);
    try {
      const last = await since();
      const started = performance.now();
      const received = await load(port, paths, key, SECONDS, 202);
      const evaluatedAt = await drained(t);
      const byStatus = await statuses(last);
      return { choice, version, receiverOnly, backlog, backlogSeconds, received, evaluated: total(byStatus), evaluatedSeconds: (evaluatedAt - started) / 1000, byStatus };
    } finally {
      await stopEvaluation();
      await app.close();
    }
  } finally {
    await t.db.close();
  }
}

/** The baseline: a bare Fastify route that reads the body and answers 202, as the receiver does before its own work. */
async function bareRoute(): Promise<Load> {
  const app = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));
  app.post('/api/v2/eda_webhooks/:path/', async (_request, reply) => reply.code(202).send({ event_log_id: 1 }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const port = (app.server.address() as { port: number }).port;
    await load(port, ['/api/v2/eda_webhooks/bare/'], 'key', WARMUP_SECONDS, 202);
    return await load(port, ['/api/v2/eda_webhooks/bare/'], 'key', SECONDS, 202);
  } finally {
    await app.close();
  }
}

console.log(`Drover event receiver benchmark: ${CONCURRENCY} clients, ${SECONDS} s per measure, ${RULES} rules of ${CONDITIONS.length} conditions, 1 event in ${MATCH_EVERY} launching (no dispatcher)`);
console.log(`  Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), load average ${os.loadavg()[0].toFixed(1)}`);
const bare = await bareRoute();
const rows: string[][] = [[`bare Fastify route (baseline)`, (bare.latencies.length / bare.seconds).toFixed(0), '-', ms(percentile(bare.latencies, 50)), ms(percentile(bare.latencies, 99)), String(bare.errors)]];
const details: string[] = [];
for (const choice of databases()) {
  const r = await runOn(choice);
  const db = `${r.choice === 'postgres' ? 'PostgreSQL' : 'PGlite'} ${r.version.split(' ')[0]}`;
  const accepted = r.received.latencies.length - r.received.errors;
  const only = r.receiverOnly;
  rows.push([`${db}: receiver alone (nothing evaluating)`, ((only.latencies.length - only.errors) / only.seconds).toFixed(0), '-', ms(percentile(only.latencies, 50)), ms(percentile(only.latencies, 99)), String(only.errors)]);
  rows.push([`${db}: evaluation alone (a backlog of ${r.backlog})`, '-', (r.backlog / r.backlogSeconds).toFixed(0), '-', '-', '-']);
  rows.push([`${db}: receiver and evaluation`, (accepted / r.received.seconds).toFixed(0), (r.evaluated / r.evaluatedSeconds).toFixed(0), ms(percentile(r.received.latencies, 50)), ms(percentile(r.received.latencies, 99)), String(r.received.errors)]);
  details.push(`  ${db}: ${r.evaluated} events evaluated in ${r.evaluatedSeconds.toFixed(1)} s (${Object.entries(r.byStatus).map(([s, n]) => `${s} ${n}`).join(', ')}); body ${r.received.bodyBytes} bytes`);
}
console.log(table(['endpoint', '202/s', 'evaluated/s', 'p50 ms', 'p99 ms', 'errors'], rows));
console.log(details.join('\n'));
console.log('evaluated/s: events of the measure evaluated (conditions, throttle, actions, outcome stored) per second, from the first request until none waits.');
console.log('Goal: on PostgreSQL, >= 3,000 events/s accepted and evaluated, p99 < 50 ms for the 202.');
