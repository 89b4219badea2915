// Task manager throughput: 10,000 pending jobs moved to waiting by task manager passes (dependency
// check, blocking rules, instance group order and capacity placement), compared in the same run with
// a bare UPDATE moving the same rows.
//
//   npm run bench:task-manager                 PGlite, or PostgreSQL when POSTGRES_HOST is set
//   npm run bench:task-manager -- --db=both    both
//
// BENCH_JOBS (10000) sets the number of pending jobs.
import { performance } from 'node:perf_hooks';
import type { TestApp } from '../test/helpers/app.ts';
import { systemContextIn } from '../src/api/context.ts';
import { schedulePass } from '../src/task-manager/schedule.ts';
import { appOn } from './lib/app.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { table } from './lib/stats.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const JOBS = intEnv('BENCH_JOBS', 10_000);
const NODES = 4;
const TEMPLATES = 50;

/** Four execution nodes with room for every job, and this node disabled so nothing actually runs. */
async function prepareCluster(t: TestApp): Promise<void> {
  await t.db.query<AnyRow>('UPDATE instances SET enabled = false');
  const [group] = await t.db.query<AnyRow>(`SELECT id FROM instance_groups WHERE name = 'default'`);
  for (let i = 1; i <= NODES; i++) {
    const [node] = await t.db.query<AnyRow>(
      `INSERT INTO instances (hostname, node_type, uuid, version, cpu, memory, cpu_capacity, mem_capacity, capacity, errors, last_seen)
       VALUES ($1, 'execution', gen_random_uuid()::text, 'bench', 64, 0, 256, 100000, $2, '', now()) RETURNING id`,
      [`bench-node-${i}`, JOBS * 2],
    );
    await t.db.query<AnyRow>('INSERT INTO instance_group_instances (instance_group_id, instance_id) VALUES ($1, $2)', [group.id, node.id]);
  }
}

async function pendingJobs(t: TestApp): Promise<void> {
  const org = (await t.post('/api/v2/organizations/', { name: 'Bench' })).body.id;
  const inventory = (await t.post('/api/v2/inventories/', { name: 'Bench', organization: org })).body.id;
  const project = (await t.post('/api/v2/projects/', { name: 'Bench', organization: org })).body.id;
  const templates: number[] = [];
  for (let i = 0; i < TEMPLATES; i++) {
    const [row] = await t.db.query<AnyRow>(
      `INSERT INTO job_templates (name, organization_id, project_id, inventory_id, playbook, allow_simultaneous) VALUES ($1, $2, $3, $4, 'site.yml', $5) RETURNING id`,
      [`bench-${i}`, org, project, inventory, i % 2 === 0],
    );
    templates.push(row.id);
  }
  // Half the templates allow simultaneous runs; the other half run one job at a time.
  await t.db.query<AnyRow>(
    `INSERT INTO unified_jobs (kind, name, status, launch_type, job_template_id, unified_job_template_id, project_id, inventory_id,
       organization_id, playbook, task_impact, forks, allow_simultaneous)
     SELECT 'job', 'bench', 'pending', 'manual', t.id, t.id, $2, $3, $4, 'site.yml', 2, 5, t.allow_simultaneous
     FROM generate_series(1, $1) g JOIN job_templates t ON t.id = ($5::int[])[1 + g % $6]`,
    [JOBS, project, inventory, org, templates, TEMPLATES],
  );
}

async function measure(choice: DbChoice): Promise<string[][]> {
  // The service's own dispatcher stays off: it would run passes of its own whenever a pass moves runs.
  const t = await appOn(choice, { dispatcher: false });
  try {
    await prepareCluster(t);
    await pendingJobs(t);
    const movable = (await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM unified_jobs j JOIN job_templates t ON t.id = j.job_template_id WHERE j.status = 'pending' AND t.allow_simultaneous`,
    ))[0].n + TEMPLATES / 2;

    const started = performance.now();
    let passes = 0;
    // Sweeps over all pending jobs until one moves nothing (the last finds only blocked jobs).
    for (let after = 0, movedInSweep = 0; ; ) {
      const pass = await schedulePass(t.db, t.services.runKinds, systemContextIn(t.services), after);
      passes++;
      if (pass.skipped) continue;
      movedInSweep += pass.moved.length;
      if (pass.more) {
        after = pass.next;
        continue;
      }
      if (!movedInSweep) break;
      after = 0;
      movedInSweep = 0;
    }
    const seconds = (performance.now() - started) / 1000;
    const [{ n: moved }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM unified_jobs WHERE status = 'waiting'`);
    if (moved !== movable) throw new Error(`expected ${movable} jobs moved to waiting, got ${moved}`);
    const [{ n: blocked }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM unified_jobs WHERE status = 'pending'`);

    // Baseline: the same number of rows moved by one bare UPDATE.
    await t.db.query<AnyRow>(`UPDATE unified_jobs SET status = 'pending', execution_node = '' WHERE status = 'waiting'`);
    const rawStarted = performance.now();
    await t.db.query<AnyRow>(`UPDATE unified_jobs SET status = 'waiting', execution_node = 'bench-node-1' WHERE id IN (SELECT id FROM unified_jobs WHERE status = 'pending' ORDER BY id LIMIT $1)`, [moved]);
    const rawSeconds = (performance.now() - rawStarted) / 1000;
    return [
      [choice, 'task manager', String(moved), String(blocked), String(passes), seconds.toFixed(2), (moved / seconds).toFixed(0)],
      [choice, 'bare UPDATE', String(moved), '-', '1', rawSeconds.toFixed(2), (moved / rawSeconds).toFixed(0)],
    ];
  } finally {
    await t.close();
  }
}

const rows: string[][] = [];
for (const choice of databases()) rows.push(...(await measure(choice)));
console.log(`${JOBS} pending jobs over ${TEMPLATES} templates (half allow_simultaneous), ${NODES} execution nodes`);
console.log(table(['database', 'path', 'moved', 'left blocked', 'passes', 'seconds', 'jobs/s'], rows));
console.log('goal: at least 500 jobs/s moved to waiting');
