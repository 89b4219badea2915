// Workflow scheduling overhead: a 200-node workflow (20 layers of 10 nodes, each node a success
// child of the node above it) and 100 concurrent 5-node chains, with every job finishing at once
// (the job kind's runner replaced by an instant one, in this benchmark only), compared in the same
// run with as many plain job launches of the same template.
//
//   npm run bench:workflows                 PGlite, or PostgreSQL when POSTGRES_HOST is set
//   npm run bench:workflows -- --db=both    both
//
// BENCH_LAYERS (20), BENCH_WIDTH (10), BENCH_FLOWS (100) and BENCH_CHAIN (5) set the shapes.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { TestApp } from '../test/helpers/app.ts';
import { makeRepository } from '../test/helpers/git.ts';
import { firstProjectUpdate } from '../test/helpers/jobs.ts';
import { jobKind } from '../src/run-kinds/job/kind.ts';
import type { RunKind } from '../src/runs/run-kind.ts';
import { appOn } from './lib/app.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { ms, percentile, table } from './lib/stats.ts';

const LAYERS = intEnv('BENCH_LAYERS', 20);
const WIDTH = intEnv('BENCH_WIDTH', 10);
const FLOWS = intEnv('BENCH_FLOWS', 100);
const CHAIN = intEnv('BENCH_CHAIN', 5);
const GOAL_MS = 20;

/** Jobs that succeed as soon as they start: what remains is the service's own work. */
const instantJobs: RunKind = { ...jobKind, run: async () => ({ status: 'successful' }) };

async function post(t: TestApp, url: string, body: unknown): Promise<any> {
  const res = await t.post(url, body);
  if (res.status >= 300) throw new Error(`${url}: ${res.status} ${res.text}`);
  return res.body;
}

/** Waits until no run of these kinds is active; answers the elapsed milliseconds since `started`. */
async function settle(t: TestApp, started: number): Promise<number> {
  for (;;) {
    const [{ active }] = await t.db.query<{ active: number }>(`SELECT count(*)::int AS active FROM unified_jobs WHERE status IN ('new', 'pending', 'waiting', 'running')`);
    if (!active) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The benchmark's database stamps a run's `created` and `finished` with the time of the statement
 * (clock_timestamp) instead of the start of its transaction (now()), so a node's lag counts all of
 * the work between its parent's end and its own run's insert: the rest of the transaction ending the
 * parent, the notice, and the look up to the insert. Transaction start times undercount it (a look
 * that began before the parent's end could start its child with an earlier `created`).
 */
async function stampWithTheClock(t: TestApp): Promise<void> {
  await t.db.query(`CREATE OR REPLACE FUNCTION bench_clock_stamps() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN NEW.created := clock_timestamp();
      ELSIF NEW.finished IS DISTINCT FROM OLD.finished AND NEW.finished IS NOT NULL THEN NEW.finished := clock_timestamp();
      END IF;
      RETURN NEW;
    END $$`);
  await t.db.query('CREATE TRIGGER bench_clock_stamps BEFORE INSERT OR UPDATE ON unified_jobs FOR EACH ROW EXECUTE FUNCTION bench_clock_stamps()');
}

/**
 * Scheduling overhead per node: how long after the parent run that released it ended each node's run
 * was created (the workflow pass noticing the end and launching the child), for the workflow jobs of
 * one template.
 */
async function nodeLags(t: TestApp, workflowTemplate: number): Promise<number[]> {
  const rows = await t.db.query<{ lag: number }>(
    `SELECT extract(epoch FROM c.created - max(pj.finished)) * 1000 AS lag
     FROM workflow_job_nodes n JOIN unified_jobs w ON w.id = n.workflow_job_id JOIN unified_jobs c ON c.id = n.job_id
     JOIN workflow_job_node_edges e ON e.child_id = n.id JOIN workflow_job_nodes pn ON pn.id = e.parent_id JOIN unified_jobs pj ON pj.id = pn.job_id
     WHERE w.unified_job_template_id = $1 GROUP BY n.id, c.created`,
    [workflowTemplate],
  );
  return rows.map((r) => Number(r.lag)).sort((a, b) => a - b);
}

async function workflowOf(t: TestApp, org: number, name: string, template: number, layers: number, width: number): Promise<number> {
  const wf = await post(t, '/api/v2/workflow_job_templates/', { name, organization: org, allow_simultaneous: true });
  let above: number[] = [];
  for (let layer = 0; layer < layers; layer++) {
    const row: number[] = [];
    for (let i = 0; i < width; i++) {
      const node = await post(t, '/api/v2/workflow_job_template_nodes/', { workflow_job_template: wf.id, unified_job_template: template });
      if (above.length) await post(t, `/api/v2/workflow_job_template_nodes/${above[i]}/success_nodes/`, { id: node.id });
      row.push(node.id);
    }
    above = row;
  }
  return wf.id;
}

async function measure(choice: DbChoice): Promise<string[][]> {
  const t = await appOn(choice, { extraRunKinds: [instantJobs] });
  await stampWithTheClock(t);
  const repo = await makeRepository({ 'noop.yml': '- hosts: all\n  tasks: []\n' });
  try {
    const org = (await post(t, '/api/v2/organizations/', { name: 'bench' })).id;
    const project = (await post(t, '/api/v2/projects/', { name: 'bench', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).id;
    await firstProjectUpdate(t, project);
    const inventory = (await post(t, '/api/v2/inventories/', { name: 'bench', organization: org })).id;
    await post(t, '/api/v2/hosts/', { name: 'localhost', inventory });
    const template = (await post(t, '/api/v2/job_templates/', { name: 'noop', project, inventory, playbook: 'noop.yml', allow_simultaneous: true })).id;
    const big = await workflowOf(t, org, 'big', template, LAYERS, WIDTH);
    const chain = await workflowOf(t, org, 'chain', template, CHAIN, 1);
    const rows: string[][] = [];
    const row = (what: string, runs: number, elapsed: number, lags: number[] = []) => {
      const lag = (p: number) => (lags.length ? ms(percentile(lags, p)) : '-');
      rows.push([choice, what, String(runs), ms(elapsed), ms(elapsed / runs), (runs / (elapsed / 1000)).toFixed(0), lag(50), lag(95), lag(100)]);
      console.log(`  ${choice}: ${what}: ${ms(elapsed)} ms`);
    };

    const bigNodes = LAYERS * WIDTH;
    let started = performance.now();
    for (let i = 0; i < bigNodes; i++) await post(t, `/api/v2/job_templates/${template}/launch/`, {});
    row(`baseline: ${bigNodes} job launches`, bigNodes, await settle(t, started));
    started = performance.now();
    await post(t, `/api/v2/workflow_job_templates/${big}/launch/`, {});
    row(`one ${LAYERS}x${WIDTH}-node workflow`, bigNodes, await settle(t, started), await nodeLags(t, big));

    const chainNodes = FLOWS * CHAIN;
    started = performance.now();
    for (let i = 0; i < chainNodes; i++) await post(t, `/api/v2/job_templates/${template}/launch/`, {});
    row(`baseline: ${chainNodes} job launches`, chainNodes, await settle(t, started));
    started = performance.now();
    for (let i = 0; i < FLOWS; i++) await post(t, `/api/v2/workflow_job_templates/${chain}/launch/`, {});
    row(`${FLOWS} concurrent ${CHAIN}-node chains`, chainNodes, await settle(t, started), await nodeLags(t, chain));
    const [{ failed }] = await t.db.query<{ failed: number }>(`SELECT count(*)::int AS failed FROM unified_jobs WHERE status <> 'successful' AND kind IN ('job', 'workflow_job')`);
    if (failed) throw new Error(`${failed} runs did not succeed`);
    return rows;
  } finally {
    await t.close();
    await repo.remove();
  }
}

console.log(`Drover workflow benchmark: instant jobs; ${LAYERS}x${WIDTH} nodes in one workflow, ${FLOWS} workflows of ${CHAIN} chained nodes`);
console.log(`  Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), load average ${os.loadavg()[0].toFixed(1)}`);
const rows: string[][] = [];
for (const choice of databases()) rows.push(...(await measure(choice)));
console.log(table(['database', 'what', 'runs', 'total ms', 'ms per run', 'runs/s', 'node lag p50', 'p95', 'max'], rows));
console.log(`Node lag: from the end of the run that released a node to the creation of the node's run, by the clock of the statements (the workflow's scheduling overhead per node). Goal: <= ${GOAL_MS} ms.`);
console.log('Baselines launch the same number of jobs of the same template one after another through the API, without a workflow.');
process.exit(0);
