// Job event ingestion: 100,000 recorded ansible-runner events (JSON lines as `ansible-runner run --json`
// prints them) fed through the ingestion path (parse, scrub secrets, batch insert), compared in the same
// run with a raw multi-row INSERT of the same rows.
//
//   npm run bench:event-ingest                 PGlite, or PostgreSQL when POSTGRES_HOST is set
//   npm run bench:event-ingest -- --db=both    both
//
// BENCH_EVENTS (100000) sets the number of events.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { TestApp } from '../test/helpers/app.ts';
import { EventIngester, eventRow, type RunnerEvent } from '../src/ansible/event-ingest.ts';
import { appOn } from './lib/app.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { table } from './lib/stats.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const EVENTS = intEnv('BENCH_EVENTS', 100_000);
const HOSTS = 100;
const RAW_BATCH = 1_000;

/** Events shaped as a real run's: per task a task start, then an ok or changed result per host. */
function recordedEvents(): string[] {
  const lines: string[] = [];
  let line = 0;
  for (let counter = 1; counter <= EVENTS; counter++) {
    const task = Math.floor(counter / (HOSTS + 1));
    const host = `host${counter % HOSTS}`;
    const starts = counter % (HOSTS + 1) === 0;
    const stdout = starts ? `\r\nTASK [configure ${task}] ${'*'.repeat(60)}` : `changed: [${host}]`;
    const lineCount = starts ? 2 : 1;
    const event: RunnerEvent = {
      uuid: `00000000-0000-4000-8000-${String(counter).padStart(12, '0')}`,
      parent_uuid: `00000000-0000-4000-9000-${String(task).padStart(12, '0')}`,
      counter,
      event: starts ? 'playbook_on_task_start' : 'runner_on_ok',
      stdout,
      start_line: line,
      end_line: line + lineCount,
      created: new Date(Date.UTC(2026, 10, 23, 10, 0, 0, counter)).toISOString().replace('Z', ''),
      event_data: {
        playbook: 'site.yml', play: 'all', task: `configure ${task}`, task_action: 'ansible.builtin.command',
        ...(starts ? {} : { host, remote_addr: host, res: { changed: true, rc: 0, stdout: 'done', cmd: ['/bin/true'], delta: '0:00:00.002' } }),
      },
    };
    line += lineCount;
    lines.push(JSON.stringify(event));
  }
  return lines;
}

async function newJob(t: TestApp): Promise<number> {
  const [row] = await t.db.query<AnyRow>(`INSERT INTO unified_jobs (kind, name, status) VALUES ('job', 'bench', 'running') RETURNING id`);
  return row.id;
}

async function throughIngestion(t: TestApp, lines: string[], hostIds: Map<string, number>): Promise<number> {
  const jobId = await newJob(t);
  const started = performance.now();
  const ingester = new EventIngester(t.db, jobId, hostIds, ['not-in-output-secret'], { counter: 0, line: 0 });
  for (let i = 0; i < lines.length; i++) {
    ingester.addLine(lines[i]);
    // Runner prints events as they happen: give the batches their turn as a real stream would.
    if (i % 1_000 === 999) await new Promise((resolve) => setImmediate(resolve));
  }
  await ingester.flush();
  return (performance.now() - started) / 1000;
}

async function rawInsert(t: TestApp, lines: string[], hostIds: Map<string, number>): Promise<number> {
  const jobId = await newJob(t);
  const rows = lines.map((l) => eventRow(JSON.parse(l), { counter: 0, line: 0 }, hostIds));
  const columns = Object.keys(rows[0]);
  const started = performance.now();
  for (let i = 0; i < rows.length; i += RAW_BATCH) {
    const batch = rows.slice(i, i + RAW_BATCH);
    const params: unknown[] = [];
    const values = batch.map((row) => {
      const slots = [params.push(jobId)];
      for (const c of columns) slots.push(params.push(c === 'event_data' ? JSON.stringify((row as any)[c]) : (row as any)[c]));
      return `(${slots.map((n) => `$${n}`).join(', ')})`;
    });
    await t.db.query<AnyRow>(`INSERT INTO unified_job_events (unified_job_id, ${columns.join(', ')}) VALUES ${values.join(', ')}`, params);
  }
  return (performance.now() - started) / 1000;
}

async function runOn(choice: DbChoice, lines: string[]) {
  const t = await appOn(choice);
  try {
    const [{ server_version: version }] = await t.db.query<{ server_version: string }>('SHOW server_version');
    const org = (await t.get('/api/v2/organizations/Default/')).body.id;
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Bench', organization: org })).body.id;
    for (let h = 0; h < HOSTS; h++) await t.db.query<AnyRow>('INSERT INTO hosts (name, inventory_id) VALUES ($1, $2)', [`host${h}`, inventory]);
    const hostIds = new Map((await t.db.query<AnyRow>('SELECT name, id FROM hosts WHERE inventory_id = $1', [inventory])).map((r) => [r.name, r.id]));
    const raw = await rawInsert(t, lines, hostIds);
    const ingest = await throughIngestion(t, lines, hostIds);
    return { choice, version, raw, ingest };
  } finally {
    await t.close();
  }
}

console.log(`Drover event ingestion benchmark: ${EVENTS.toLocaleString('en')} events`);
console.log(`  Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'})`);
const lines = recordedEvents();
const rows = [];
for (const choice of databases()) {
  const r = await runOn(choice, lines);
  rows.push([
    r.choice === 'postgres' ? `PostgreSQL ${r.version}` : `PGlite ${r.version}`,
    Math.round(EVENTS / r.ingest).toLocaleString('en'),
    Math.round(EVENTS / r.raw).toLocaleString('en'),
    (r.raw / r.ingest).toFixed(2),
  ]);
}
console.log(table(['database', 'ingestion events/s', 'raw insert events/s', 'ingestion / raw'], rows));
console.log('Goals: PostgreSQL >= 5,000 events/s and >= 0.5 of raw; PGlite >= 2,500 events/s.');
