// Latency of the service analytics endpoints (docs/analytics.md) on a large history: 1,000,000
// finished jobs over the last year across the templates of 10 organizations, 50,000 hosts, three
// job host summaries a job; each endpoint's p50/p99 beside a plain page of the same rows
// (GET /api/v2/jobs/?finished__gte=<the period's start>) as the baseline of the same run, for a
// superuser and for an organization admin.
//
//   npm run bench:analytics                                        PGlite, or PostgreSQL when POSTGRES_HOST is set
//   BENCH_DB=both POSTGRES_HOST=127.0.0.1 npm run bench:analytics  both, one after the other
//
// Other knobs (environment): BENCH_JOBS (1000000), BENCH_HOSTS (50000), BENCH_HOSTS_PER_JOB (3),
// BENCH_ORGS (10), BENCH_TEMPLATES (10 per organization), BENCH_REQUESTS (100 measured requests per
// endpoint and caller), BENCH_WARMUP (10), BENCH_FINISHES (2000 jobs ended to price keeping the
// day totals), BENCH_ENDPOINTS (a comma-separated list: only these endpoints, beside the baseline),
// BENCH_EXPLAIN=1 (print the plan of every query of one request per endpoint and caller). It only
// prints figures.
import os from 'node:os';
import path from 'node:path';
import { mkdir, writeFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { ADMIN, basicAuth, type TestApp } from '../test/helpers/app.ts';
import { appOn } from './lib/app.ts';
import { explain } from './lib/explain.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { ms, percentile, table } from './lib/stats.ts';

const JOBS = intEnv('BENCH_JOBS', 1_000_000);
const HOSTS = intEnv('BENCH_HOSTS', 50_000);
const HOSTS_PER_JOB = intEnv('BENCH_HOSTS_PER_JOB', 3);
const ORGS = intEnv('BENCH_ORGS', 10);
const TEMPLATES = intEnv('BENCH_TEMPLATES', 10);
const REQUESTS = intEnv('BENCH_REQUESTS', 100);
const WARMUP = intEnv('BENCH_WARMUP', 10);
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const BATCH = 100_000;
const FINISHES = intEnv('BENCH_FINISHES', 2000);
const DAY_MS = 86_400_000;

const monthStart = () => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - 29 * DAY_MS).toISOString();
const ALL_SCENARIOS = [
  { name: 'baseline: /jobs/?finished__gte=<month start>', url: () => `/api/v2/jobs/?finished__gte=${encodeURIComponent(monthStart())}` },
  ...['job_trends', 'success_rate', 'top_templates', 'busiest_hosts', 'host_coverage', 'failure_analysis', 'time_savings'].map((e) => ({ name: e, url: () => `/api/v2/svc_analytics/${e}/` })),
  { name: 'job_trends ?period=year&granularity=month', url: () => '/api/v2/svc_analytics/job_trends/?period=year&granularity=month' },
];
const ONLY = process.env.BENCH_ENDPOINTS?.split(',').map((e) => e.trim()).filter(Boolean);
const SCENARIOS = ONLY ? ALL_SCENARIOS.filter((s) => s.name.startsWith('baseline') || ONLY.some((e) => s.name.startsWith(e))) : ALL_SCENARIOS;

interface Seeded { orgAdmin: { username: string; password: string }; seconds: number; finishCost: { kept: number; baseline: number } }

/** Organizations, manual projects, inventories and templates through the API (so their roles are the API's), then hosts, jobs and summaries in bulk SQL. */
async function seed(t: TestApp): Promise<Seeded> {
  const started = performance.now();
  const post = async (url: string, body: unknown) => {
    const res = await t.post(url, body);
    if (res.status !== 201) throw new Error(`POST ${url}: ${res.status} ${res.text}`);
    return res.body;
  };
  const templates: { id: number; org: number; inventory: number }[] = [];
  const inventories: number[] = [];
  let firstOrg = 0;
  for (let o = 0; o < ORGS; o++) {
    const org = (await post('/api/v2/organizations/', { name: `bench-org-${o}` })).id;
    firstOrg ||= org;
    // A manual project's directory is its own.
    await mkdir(path.join(t.env.projectsRoot, `bench-${o}`), { recursive: true });
    await writeFile(path.join(t.env.projectsRoot, `bench-${o}`, 'site.yml'), '- hosts: all\n  tasks: []\n');
    const project = (await post('/api/v2/projects/', { name: `bench-project-${o}`, organization: org, local_path: `bench-${o}` })).id;
    const inventory = (await post('/api/v2/inventories/', { name: `bench-inventory-${o}`, organization: org })).id;
    inventories.push(inventory);
    for (let k = 0; k < TEMPLATES; k++) templates.push({ id: (await post('/api/v2/job_templates/', { name: `bench-jt-${o}-${k}`, project, inventory, playbook: 'site.yml' })).id, org, inventory });
  }
  const orgAdmin = await t.createUser('bench-org-admin');
  const res = await t.post(`/api/v2/organizations/${firstOrg}/admins/`, { id: orgAdmin.id });
  if (res.status !== 204) throw new Error(`making the organization admin: ${res.status} ${res.text}`);

  // The day totals (migration 0044) are built once after the bulk inserts, not row by row by their triggers.
  await setTotalsTriggers(t, false);
  const perInventory = Math.max(1, Math.floor(HOSTS / inventories.length));
  await t.db.query(
    `INSERT INTO hosts (name, inventory_id) SELECT 'host-' || i || '-' || n, inv FROM unnest($1::integer[]) WITH ORDINALITY AS x(inv, i), generate_series(1, $2::integer) AS n ORDER BY i, n`,
    [inventories, perInventory],
  );
  const [{ first }] = await t.db.query<{ first: number }>('SELECT min(id)::int AS first FROM hosts');
  const ids = templates.map((tpl) => tpl.id);
  const orgs = templates.map((tpl) => tpl.org);
  const invs = templates.map((tpl) => tpl.inventory);
  // Job n: template n mod T; finished a pseudo-random moment of the last 365 days; 80% successful, 12% failed, 5% error, 3% canceled; 10 s to 20 min.
  for (let from = 1; from <= JOBS; from += BATCH) {
    const to = Math.min(JOBS, from + BATCH - 1);
    await t.db.query(
      `INSERT INTO unified_jobs (kind, name, status, failed, elapsed, created, started, finished, job_template_id, unified_job_template_id, organization_id, inventory_id, launch_type)
       SELECT 'job', 'bench-jt-' || k, s.status, s.status IN ('failed', 'error'), s.elapsed, s.finished - make_interval(secs => s.elapsed + 5), s.finished - make_interval(secs => s.elapsed), s.finished,
         ($3::integer[])[k], ($3::integer[])[k], ($4::integer[])[k], ($5::integer[])[k], 'manual'
       FROM generate_series($1::integer, $2::integer) AS n,
         LATERAL (SELECT 1 + n % array_length($3::integer[], 1) AS k) AS pick,
         LATERAL (SELECT CASE WHEN (n::bigint * 7919) % 100 < 80 THEN 'successful' WHEN (n::bigint * 7919) % 100 < 92 THEN 'failed' WHEN (n::bigint * 7919) % 100 < 97 THEN 'error' ELSE 'canceled' END AS status,
           (10 + (n::bigint * 104729) % 1190)::numeric AS elapsed,
           now() - make_interval(secs => ((n::bigint * 2654435761) % 31536000)::double precision) AS finished) AS s`,
      [from, to, ids, orgs, invs],
    );
    process.stdout.write(`\r   jobs: ${to.toLocaleString('en')}`);
  }
  console.log();
  const [{ firstJob }] = await t.db.query<{ firstJob: number }>(`SELECT min(id)::int AS "firstJob" FROM unified_jobs WHERE kind = 'job' AND name LIKE 'bench-jt-%'`);
  // Each job's hosts: HOSTS_PER_JOB hosts of its template's inventory (the hosts of inventory i are ids first + i * perInventory ...).
  for (let from = firstJob; from < firstJob + JOBS; from += BATCH) {
    await t.db.query(
      `INSERT INTO job_host_summaries (job_id, host_id, host_name, ok, changed, failures, skipped, dark, failed, created, modified)
       SELECT j.id, h.id, h.name, 1 + (j.id + k) % 5, (j.id + k) % 3, f.failures, (j.id * k) % 2, 0, f.failures > 0, j.finished, j.finished
       FROM unified_jobs j CROSS JOIN generate_series(1, $3::integer) AS k
       JOIN hosts h ON h.id = $4::integer + (array_position($5::integer[], j.inventory_id) - 1) * $6::integer + ((j.id::bigint * 31 + k * 7919) % $6::integer)
       CROSS JOIN LATERAL (SELECT CASE WHEN j.status = 'failed' AND k = 1 THEN 1 ELSE 0 END AS failures) AS f
       WHERE j.id >= $1 AND j.id < $2 AND j.kind = 'job'`,
      [from, from + BATCH, HOSTS_PER_JOB, first, inventories, perInventory],
    );
    process.stdout.write(`\r   job host summaries: jobs up to ${(Math.min(JOBS, from - firstJob + BATCH)).toLocaleString('en')}`);
  }
  console.log();
  await setTotalsTriggers(t, true);
  const rebuild = performance.now();
  await t.db.query('SELECT analytics_rebuild_totals()');
  console.log(`   day totals built in ${((performance.now() - rebuild) / 1000).toFixed(1)} s`);
  await t.db.exec('VACUUM ANALYZE');
  return { orgAdmin, seconds: (performance.now() - started) / 1000, finishCost: await finishCost(t, templates[0]) };
}

async function setTotalsTriggers(t: TestApp, on: boolean): Promise<void> {
  const verb = on ? 'ENABLE' : 'DISABLE';
  await t.db.exec(`ALTER TABLE unified_jobs ${verb} TRIGGER unified_jobs_analytics; ALTER TABLE job_host_summaries ${verb} TRIGGER job_host_summaries_analytics`);
}

/**
 * What keeping the totals costs a job's end: FINISHES jobs of one template with HOSTS_PER_JOB
 * summaries each, finished one statement a job as the task manager does, with the totals'
 * triggers on and, as the baseline, off. Mean ms per job's end.
 */
async function finishCost(t: TestApp, template: { id: number; org: number; inventory: number }): Promise<{ kept: number; baseline: number }> {
  const mean = async (on: boolean) => {
    await setTotalsTriggers(t, on);
    const ids = (await t.db.query<{ id: number }>(
      `INSERT INTO unified_jobs (kind, name, status, created, started, job_template_id, unified_job_template_id, organization_id, inventory_id, launch_type)
       SELECT 'job', 'bench-finish', 'running', now(), now(), $1, $1, $2, $3, 'manual' FROM generate_series(1, $4::integer) RETURNING id`,
      [template.id, template.org, template.inventory, FINISHES],
    )).map((row) => row.id);
    await t.db.query(
      `INSERT INTO job_host_summaries (job_id, host_id, host_name, ok)
       SELECT j, h.id, h.name, 1 FROM unnest($1::integer[]) AS j, LATERAL (SELECT id, name FROM hosts WHERE inventory_id = $2 ORDER BY id OFFSET (j % 1000) LIMIT $3) AS h`,
      [ids, template.inventory, HOSTS_PER_JOB],
    );
    const start = performance.now();
    for (const id of ids) await t.db.query("UPDATE unified_jobs SET status = 'successful', finished = now(), elapsed = 12 WHERE id = $1", [id]);
    const took = (performance.now() - start) / ids.length;
    await setTotalsTriggers(t, true);
    return took;
  };
  const baseline = await mean(false);
  const kept = await mean(true);
  return { kept, baseline };
}

interface Figures { scenario: string; caller: string; measured: number[]; size: number }

async function runOn(choice: DbChoice): Promise<{ db: DbChoice; version: string; figures: Figures[] }> {
  console.log(`\n== ${choice === 'postgres' ? 'PostgreSQL' : 'PGlite (embedded)'}: fresh database, seeding ${JOBS.toLocaleString('en')} jobs, ${HOSTS.toLocaleString('en')} hosts...`);
  const t = await appOn(choice);
  try {
    const { orgAdmin, seconds, finishCost: cost } = await seed(t);
    const [{ summaries }] = await t.db.query<{ summaries: number }>('SELECT count(*)::int AS summaries FROM job_host_summaries');
    console.log(`   seeded in ${seconds.toFixed(1)} s (${summaries.toLocaleString('en')} job host summaries)`);
    console.log(`   a job's end, ms (mean of ${FINISHES}): ${cost.kept.toFixed(2)} keeping the day totals, ${cost.baseline.toFixed(2)} without (baseline)`);
    const [{ server_version: version }] = await t.db.query<{ server_version: string }>('SHOW server_version');
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const callers = [{ label: 'superuser', auth: basicAuth(ADMIN) }, { label: 'org admin (1 of ' + ORGS + ')', auth: basicAuth(orgAdmin) }];
    const figures: Figures[] = [];
    for (const caller of callers) {
      for (const scenario of SCENARIOS) {
        const get = async () => {
          const start = performance.now();
          const res = await fetch(address + scenario.url(), { headers: { authorization: caller.auth } });
          const text = await res.text();
          if (res.status !== 200) throw new Error(`${scenario.name} as ${caller.label}: ${res.status} ${text.slice(0, 300)}`);
          return { ms: performance.now() - start, text };
        };
        let size = 0;
        for (let i = 0; i < WARMUP; i++) size = (await get()).text.length;
        const measured: number[] = [];
        for (let i = 0; i < REQUESTS; i++) measured.push((await get()).ms);
        figures.push({ scenario: scenario.name, caller: caller.label, measured, size });
        if (EXPLAIN) await explain(t, () => fetch(address + scenario.url(), { headers: { authorization: caller.auth } }), `${scenario.name}, ${caller.label}`);
      }
      console.log(`   ${caller.label}: done`);
    }
    return { db: choice, version, figures };
  } finally {
    await t.close();
  }
}

const choices = databases();
console.log('Drover service analytics benchmark');
console.log(`  ${JOBS.toLocaleString('en')} finished jobs over 365 days, ${ORGS * TEMPLATES} templates in ${ORGS} organizations, ${HOSTS.toLocaleString('en')} hosts, ${HOSTS_PER_JOB} host summaries a job; default period (month)`);
console.log(`  ${REQUESTS} measured requests per endpoint and caller after ${WARMUP} warm-up, one at a time, real HTTP; Node ${process.version}, ${os.cpus().length} CPUs`);
for (const choice of choices) {
  const report = await runOn(choice);
  console.log(`\n### ${report.db === 'postgres' ? 'PostgreSQL' : 'PGlite'} ${report.version} (ms)`);
  const callers = [...new Set(report.figures.map((f) => f.caller))];
  const headers = ['endpoint', ...callers.flatMap((c) => [`${c}: p50`, 'p99', 'bytes'])];
  const rows = SCENARIOS.map((s) => [s.name, ...callers.flatMap((c) => {
    const f = report.figures.find((x) => x.scenario === s.name && x.caller === c)!;
    const sorted = [...f.measured].sort((a, b) => a - b);
    return [ms(percentile(sorted, 50)), ms(percentile(sorted, 99)), String(f.size)];
  })]);
  console.log(table(headers, rows));
  const worst = Math.max(...report.figures.filter((f) => !f.scenario.startsWith('baseline')).map((f) => percentile([...f.measured].sort((a, b) => a - b), 99)));
  console.log(`\nGoal: p99 under 200 ms per endpoint. Worst p99 here: ${ms(worst)} ms (${worst < 200 ? 'met' : 'not met'}).`);
}
