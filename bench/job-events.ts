// Reading the events of a big job: a job with 200,000 events (inserted directly, in batches), then
// the latency of the reads a client makes of it, one request at a time over HTTP on loopback. A GET
// of the job itself is the baseline of the same run.
//
//   npm run bench:job-events                   PGlite, or PostgreSQL when POSTGRES_HOST is set
//   npm run bench:job-events -- --db=both      both
//
// BENCH_EVENTS (200000) sets the job's size, BENCH_REQUESTS (200) the requests per measure (after
// BENCH_WARMUP (10) unmeasured ones).
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { TestApp } from '../test/helpers/app.ts';
import { ADMIN, basicAuth } from '../test/helpers/app.ts';
import { buildApp } from '../src/server/app.ts';
import { appOn } from './lib/app.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { ms, percentile, table } from './lib/stats.ts';

const EVENTS = intEnv('BENCH_EVENTS', 200_000);
const REQUESTS = intEnv('BENCH_REQUESTS', 200);
const WARMUP = intEnv('BENCH_WARMUP', 10);
const HOSTS = 10;
const TASKS_PER_PLAY = 1_000;
const BATCH = 10_000;

interface Measure {
  p50: number;
  p99: number;
  bytes: number;
  errors: number;
}

/** GETs `path` REQUESTS times, one after the other, after WARMUP unmeasured requests. */
async function measure(port: number, path: string): Promise<Measure> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { authorization: basicAuth(ADMIN) };
  const one = () =>
    new Promise<{ status: number; bytes: number }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, method: 'GET', path, agent, headers }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      });
      req.once('error', reject);
      req.end();
    });
  for (let i = 0; i < WARMUP; i++) await one();
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const sent = performance.now();
    const answer = await one().catch(() => ({ status: 0, bytes: 0 }));
    latencies.push(performance.now() - sent);
    if (answer.status !== 200) errors++;
    bytes = answer.bytes;
  }
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), bytes, errors };
}

/**
 * A finished job of a template with EVENTS events shaped as a playbook makes them: a start, plays
 * of TASKS_PER_PLAY tasks, each task followed by one event per host, the stats last; one stdout
 * line per event. Answers the job's id and one of its hosts.
 */
async function bigJob(t: TestApp): Promise<{ jobId: number; hostId: number; seconds: number }> {
  const org = (await t.get('/api/v2/organizations/Default/')).body.id;
  const inventory = (await t.post('/api/v2/inventories/', { name: 'Bench', organization: org })).body.id;
  const hostIds: number[] = [];
  for (let h = 0; h < HOSTS; h++) hostIds.push((await t.post('/api/v2/hosts/', { name: `host${h}`, inventory })).body.id);
  const [job] = await t.db.query<{ id: number }>(
    `INSERT INTO unified_jobs (kind, name, status, inventory_id, organization_id, job_type, playbook, event_processing_finished, started, finished, elapsed)
     VALUES ('job', 'Big', 'successful', $1, $2, 'run', 'site.yml', true, now(), now(), 1) RETURNING id`,
    [inventory, org],
  );
  const started = performance.now();
  let play = '';
  let task = '';
  const columns = { counter: [] as number[], uuid: [] as string[], parent: [] as string[], event: [] as string[], host: [] as (number | null)[], hostName: [] as string[], stdout: [] as string[] };
  const flush = async () => {
    const n = columns.counter.length;
    if (!n) return;
    await t.db.query(
      `INSERT INTO unified_job_events (unified_job_id, counter, uuid, parent_uuid, event, host_id, host_name, stdout, start_line, end_line, task, play)
       SELECT $1, c, u, p, e, h, hn, s, c - 1, c, '', '' FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[]) AS x(c, u, p, e, h, hn, s)`,
      [job.id, columns.counter, columns.uuid, columns.parent, columns.event, columns.host, columns.hostName, columns.stdout],
    );
    for (const list of Object.values(columns)) list.length = 0;
  };
  const add = (counter: number, event: string, parent: string, host: number | null, stdout: string) => {
    const uuid = `e-${counter}`;
    Object.entries({ counter, uuid, parent, event, host: host === null ? null : hostIds[host], hostName: host === null ? '' : `host${host}`, stdout })
      .forEach(([name, value]) => (columns[name as keyof typeof columns] as unknown[]).push(value));
    return uuid;
  };
  const root = add(1, 'playbook_on_start', '', null, '');
  let tasks = 0;
  let inTask = HOSTS;
  for (let counter = 2; counter <= EVENTS; counter++) {
    if (counter === EVENTS) add(counter, 'playbook_on_stats', root, null, 'PLAY RECAP *********');
    else if (!play || (inTask === HOSTS && tasks === TASKS_PER_PLAY)) {
      play = add(counter, 'playbook_on_play_start', root, null, `PLAY [play ${counter}] *********`);
      tasks = 0;
      inTask = HOSTS;
    } else if (inTask === HOSTS) {
      task = add(counter, 'playbook_on_task_start', play, null, `TASK [task ${counter}] *********`);
      tasks++;
      inTask = 0;
    } else {
      add(counter, 'runner_on_ok', task, inTask, `ok: [host${inTask}] => {"changed": false, "msg": "event ${counter}"}`);
      inTask++;
    }
    if (columns.counter.length >= BATCH) await flush();
  }
  await flush();
  await t.db.query('VACUUM ANALYZE unified_job_events');
  return { jobId: job.id, hostId: hostIds[3], seconds: (performance.now() - started) / 1000 };
}

async function runOn(choice: DbChoice) {
  const t = await appOn(choice);
  try {
    const [{ server_version: version }] = await t.db.query<{ server_version: string }>('SHOW server_version');
    const { jobId, hostId, seconds } = await bigJob(t);
    await t.app.close();
    const app = await buildApp(t.services, { dispatcher: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as { port: number }).port;
    try {
      const events = `/api/v2/jobs/${jobId}/job_events/`;
      const scenarios: [string, string][] = [
        ['GET the job (baseline)', `/api/v2/jobs/${jobId}/`],
        ['events: first page', events],
        ['events: page 4000', `${events}?page=4000`],
        ['events: one host', `${events}?host=${hostId}`],
        ['events: one event type (tasks)', `${events}?event=playbook_on_task_start`],
        ['events: one host, page 500', `${events}?host=${hostId}&page=500`],
        ['children_summary', `${events}children_summary/`],
        // Over STDOUT_MAX_BYTES_DISPLAY, txt answers "too large" as AWX does; the download reads the lines.
        ['stdout txt from line 190000', `/api/v2/jobs/${jobId}/stdout/?format=txt&start_line=${Math.max(0, EVENTS - 10_000)}`],
        ['stdout txt_download from line 190000', `/api/v2/jobs/${jobId}/stdout/?format=txt_download&start_line=${Math.max(0, EVENTS - 10_000)}`],
      ];
      const results: [string, Measure][] = [];
      for (const [name, path] of scenarios) results.push([name, await measure(port, path)]);
      return { choice, version, seconds, results };
    } finally {
      await app.close();
    }
  } finally {
    await t.db.close();
  }
}

console.log(`Drover job events benchmark: one job with ${EVENTS.toLocaleString('en')} events, ${REQUESTS} sequential GETs per measure (after ${WARMUP}), HTTP on loopback`);
console.log(`  Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), load average ${os.loadavg()[0].toFixed(1)}`);
const rows: string[][] = [];
for (const choice of databases()) {
  const r = await runOn(choice);
  const db = `${r.choice === 'postgres' ? 'PostgreSQL' : 'PGlite'} ${r.version.split(' ')[0]}`;
  console.log(`  ${db}: ${EVENTS.toLocaleString('en')} events inserted in ${r.seconds.toFixed(1)} s`);
  for (const [what, m] of r.results) rows.push([`${db}: ${what}`, ms(m.p50), ms(m.p99), (m.bytes / 1024).toFixed(0), String(m.errors)]);
}
console.log(table(['request', 'p50 ms', 'p99 ms', 'KiB', 'errors'], rows));
console.log('Goal: on PostgreSQL, p99 < 100 ms for each read of the events.');
