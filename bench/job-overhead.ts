// Job overhead: serial runs of a one-task playbook (debug) against localhost launched through the API
// (POST /job_templates/{id}/launch/ until the job is successful), compared in the same run with bare
// `/usr/bin/ansible-runner run` of the same playbook and inventory.
//
//   npm run bench:job-overhead                 PGlite, or PostgreSQL when POSTGRES_HOST is set
//   npm run bench:job-overhead -- --db=both    both
//
// BENCH_RUNS (20) sets the number of runs of each.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import type { TestApp } from '../test/helpers/app.ts';
import { makeRepository, type GitRepository } from '../test/helpers/git.ts';
import { ANSIBLE_RUNNER } from '../src/runtime/ansible-runtime.ts';
import { appOn } from './lib/app.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { ms, percentile, table } from './lib/stats.ts';

const RUNS = intEnv('BENCH_RUNS', 20);
const POLL_MS = 10;
const GOAL_SECONDS = 0.3;
const PLAYBOOK = `- hosts: all
  gather_facts: false
  tasks:
    - name: greet
      debug: msg="hello"
`;
const HOST_VARS = { ansible_connection: 'local', ansible_python_interpreter: '{{ ansible_playbook_python }}' };

const run = promisify(execFile);

interface Summary {
  median: number;
  p90: number;
}

const summary = (seconds: number[]): Summary => {
  const sorted = [...seconds].sort((a, b) => a - b);
  return { median: percentile(sorted, 50), p90: percentile(sorted, 90) };
};

/** Bare ansible-runner: the playbook and a static inventory with the same host and variables. */
async function bareRunnerDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-runner-'));
  await mkdir(path.join(dir, 'project'), { recursive: true });
  await mkdir(path.join(dir, 'inventory'), { recursive: true });
  await writeFile(path.join(dir, 'project', 'hello.yml'), PLAYBOOK);
  await writeFile(path.join(dir, 'inventory', 'hosts.json'), JSON.stringify({ all: { hosts: { localhost: HOST_VARS } } }));
  return dir;
}

let bareRuns = 0;
async function bareRun(dir: string): Promise<number> {
  const started = performance.now();
  await run(ANSIBLE_RUNNER, ['run', dir, '-p', 'hello.yml', '--json', '--ident', `bare-${++bareRuns}`], { maxBuffer: 64 * 1024 * 1024 });
  return (performance.now() - started) / 1000;
}

interface DroverRun {
  /** From the launch request to the job's finish time as stored. */
  total: number;
  /** The launch request. */
  launch: number;
  /** created -> started: the dispatcher's wake-up, claim and placement. */
  queued: number;
  /** started -> finished: ansible-runner and what the dispatcher does around it. */
  running: number;
}

const FINAL = ['successful', 'failed', 'error', 'canceled'];

/**
 * Launches through the API and waits with a cheap status query (an API GET every few milliseconds
 * would take CPU from the run it measures); the job's stored times give the figures.
 */
async function throughDrover(t: TestApp, templateId: number): Promise<DroverRun> {
  const requested = Date.now();
  const launched = await t.post(`/api/v2/job_templates/${templateId}/launch/`, {});
  const answered = Date.now();
  if (launched.status !== 201) throw new Error(`launch answered ${launched.status}: ${launched.text}`);
  for (;;) {
    const [row] = await t.db.query<{ status: string }>('SELECT status FROM unified_jobs WHERE id = $1', [launched.body.job]);
    if (FINAL.includes(row.status)) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const job = (await t.get(`/api/v2/jobs/${launched.body.job}/`)).body;
  if (job.status !== 'successful') throw new Error(`job ${job.id} ${job.status}: ${job.job_explanation}`);
  const at = (v: string) => Date.parse(v);
  return {
    total: (at(job.finished) - requested) / 1000,
    launch: (answered - requested) / 1000,
    queued: (at(job.started) - at(job.created)) / 1000,
    running: (at(job.finished) - at(job.started)) / 1000,
  };
}

async function setUp(t: TestApp, repo: GitRepository): Promise<number> {
  const org = (await t.get('/api/v2/organizations/Default/')).body.id;
  const project = (await t.post('/api/v2/projects/', { name: 'Bench', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).body;
  for (;;) {
    const status = (await t.get(`/api/v2/projects/${project.id}/`)).body.status;
    if (status === 'successful') break;
    if (['failed', 'error', 'canceled'].includes(status)) throw new Error(`project sync ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const inventory = (await t.post('/api/v2/inventories/', { name: 'Bench', organization: org })).body.id;
  await t.post('/api/v2/hosts/', { name: 'localhost', inventory, variables: JSON.stringify(HOST_VARS) });
  const template = await t.post('/api/v2/job_templates/', { name: 'Bench', project: project.id, inventory, playbook: 'hello.yml' });
  if (template.status !== 201) throw new Error(`template: ${template.text}`);
  return template.body.id;
}

/** Bare and Drover runs alternate, so both see the same machine load. */
async function runOn(choice: DbChoice, bareDir: string) {
  const t = await appOn(choice);
  const repo = await makeRepository({ 'hello.yml': PLAYBOOK });
  try {
    const [{ server_version: version }] = await t.db.query<{ server_version: string }>('SHOW server_version');
    const templateId = await setUp(t, repo);
    // Warm-up: first-use costs (module loading, caches) are not per-job overhead.
    await bareRun(bareDir);
    await throughDrover(t, templateId);
    const bare: number[] = [];
    const drover: DroverRun[] = [];
    for (let i = 0; i < RUNS; i++) {
      bare.push(await bareRun(bareDir));
      drover.push(await throughDrover(t, templateId));
    }
    return { choice, version: version.split(' ')[0], bare: summary(bare), drover };
  } finally {
    await t.close();
    await repo.remove();
  }
}

console.log(`Drover job overhead benchmark: ${RUNS} serial runs of a one-task playbook on localhost, alternating with bare ansible-runner`);
console.log(`  Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), load average ${os.loadavg()[0].toFixed(1)}`);
const bareDir = await bareRunnerDir();
const rows: string[][] = [];
try {
  for (const choice of databases()) {
    const r = await runOn(choice, bareDir);
    const db = `${r.choice === 'postgres' ? 'PostgreSQL' : 'PGlite'} ${r.version}`;
    const total = summary(r.drover.map((d) => d.total));
    const part = (key: keyof DroverRun) => ms(summary(r.drover.map((d) => d[key])).median * 1000);
    rows.push([`${db}: bare ansible-runner`, ms(r.bare.median * 1000), ms(r.bare.p90 * 1000), '', '', '', '']);
    rows.push([`${db}: Drover`, ms(total.median * 1000), ms(total.p90 * 1000), ms((total.median - r.bare.median) * 1000), part('launch'), part('queued'), part('running')]);
  }
} finally {
  await rm(bareDir, { recursive: true, force: true });
}
console.log(table(['runs', 'median ms', 'p90 ms', 'overhead ms', 'launch ms', 'queued ms', 'running ms'], rows));
console.log(`Goal: overhead (Drover median - bare median) <= ${GOAL_SECONDS * 1000} ms. Drover: launch request -> job finished (stored time);`);
console.log('launch = the POST, queued = created -> started, running = started -> finished (medians).');
