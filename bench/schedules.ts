// Schedules: 1,000 schedules due in the same minute, launched by two schedulers sharing the
// database (as two nodes would), timed from the due time until every schedule has launched its job,
// each exactly once. The baseline of the same run: as many launches through
// POST /api/v2/job_templates/{id}/launch/ (8 concurrent clients). No dispatcher: jobs stay pending.
//
//   npm run bench:schedules                  PGlite, or PostgreSQL when POSTGRES_HOST is set
//   npm run bench:schedules -- --db=both     both
//
// BENCH_SCHEDULES (1000) sets the number of schedules; they spread over 50 job templates.
import { mkdir, writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import type { TestApp } from '../test/helpers/app.ts';
import { startScheduler } from '../src/task-manager/scheduler.ts';
import { appOn } from './lib/app.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { table } from './lib/stats.ts';

const SCHEDULES = intEnv('BENCH_SCHEDULES', 1000);
const TEMPLATES = 50;
const GOAL_SECONDS = 5;

async function templates(t: TestApp): Promise<number[]> {
  const org = (await t.get('/api/v2/organizations/Default/')).body.id;
  const dir = `${t.env.projectsRoot}/bench`;
  await mkdir(dir, { recursive: true });
  await writeFile(`${dir}/hello.yml`, '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hello\n');
  const project = (await t.post('/api/v2/projects/', { name: 'Bench', organization: org, local_path: 'bench' })).body.id;
  const inventory = (await t.post('/api/v2/inventories/', { name: 'Bench', organization: org })).body.id;
  const ids: number[] = [];
  for (let i = 0; i < TEMPLATES; i++) {
    const res = await t.post('/api/v2/job_templates/', { name: `Bench ${i}`, project, inventory, playbook: 'hello.yml', allow_simultaneous: true });
    if (res.status !== 201) throw new Error(`template: ${res.text}`);
    ids.push(res.body.id);
  }
  return ids;
}

const count = async (t: TestApp, sql: string) => (await t.db.query<{ n: number }>(sql))[0].n;

/** Seconds until every schedule, due now, has launched: two schedulers on one database. */
async function scheduled(t: TestApp, ids: number[]): Promise<{ seconds: number; once: boolean }> {
  for (let i = 0; i < SCHEDULES; i++) {
    const res = await t.post('/api/v2/schedules/', { name: `Bench ${i}`, unified_job_template: ids[i % ids.length], rrule: 'DTSTART:20300101T000000Z RRULE:FREQ=MINUTELY;INTERVAL=1' });
    if (res.status !== 201) throw new Error(`schedule: ${res.text}`);
  }
  // All due at the same second, a moment from now (so both schedulers are asleep when it comes).
  const due = new Date(Math.floor(Date.now() / 1000) * 1000 + 3000);
  await t.db.query("UPDATE schedules SET rrule = $1, next_run = $2 WHERE name LIKE 'Bench %'", [`DTSTART:${due.toISOString().replace(/[-:]/g, '').slice(0, 15)}Z RRULE:FREQ=MINUTELY;INTERVAL=1`, due]);
  const nodes = [await startScheduler(t.services), await startScheduler(t.services)];
  while (Date.now() < due.getTime()) await new Promise((resolve) => setTimeout(resolve, 5));
  while ((await count(t, 'SELECT count(*)::int AS n FROM unified_jobs WHERE schedule_id IS NOT NULL')) < SCHEDULES) await new Promise((resolve) => setTimeout(resolve, 10));
  const seconds = (Date.now() - due.getTime()) / 1000;
  for (const node of nodes) await node.stop();
  const twice = await count(t, 'SELECT count(*)::int AS n FROM (SELECT schedule_id FROM unified_jobs WHERE schedule_id IS NOT NULL GROUP BY schedule_id HAVING count(*) > 1) x');
  const runs = await count(t, "SELECT count(*)::int AS n FROM unified_jobs WHERE launch_type = 'scheduled'");
  return { seconds, once: twice === 0 && runs === SCHEDULES };
}

/** Seconds for as many launches through the API (8 concurrent clients). */
async function launched(t: TestApp, ids: number[]): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < SCHEDULES) {
      const id = ids[next++ % ids.length];
      const res = await t.post(`/api/v2/job_templates/${id}/launch/`, {});
      if (res.status !== 201) throw new Error(`launch: ${res.text}`);
    }
  }));
  return (performance.now() - started) / 1000;
}

async function measure(choice: DbChoice): Promise<string[][]> {
  const t = await appOn(choice, { dispatcher: false });
  try {
    await t.patch('/api/v2/settings/jobs/', { SCHEDULE_MAX_JOBS: SCHEDULES * 2 });
    const ids = await templates(t);
    const result = await scheduled(t, ids);
    const baseline = await launched(t, ids);
    return [
      [choice, 'schedules due in one minute, 2 schedulers', String(SCHEDULES), result.seconds.toFixed(2), (SCHEDULES / result.seconds).toFixed(0), result.once ? 'yes' : 'NO'],
      [choice, 'POST launch, 8 clients (baseline)', String(SCHEDULES), baseline.toFixed(2), (SCHEDULES / baseline).toFixed(0), '-'],
    ];
  } finally {
    await t.close();
  }
}

const rows: string[][] = [];
for (const choice of databases()) rows.push(...(await measure(choice)));
console.log(table(['database', 'path', 'launches', 'seconds', 'launches/s', 'each once'], rows));
console.log(`goal: ${SCHEDULES} schedules due in the same minute launched within ${GOAL_SECONDS} s, each once`);
