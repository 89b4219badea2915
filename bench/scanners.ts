// Launch latency with scanners: POST /api/v2/job_templates/{id}/launch/ one at a time over loopback,
// plain (SCANNER_ENABLED off) as the baseline of the same run, then with one enforcing scanner of each
// tool whose scan is cold (a configuration never scanned with: a comment of its own makes it new) and
// cached (the same configuration again); a scan that did not finish ok stops the benchmark. The project is the tests' LINT_FILES (lint.yml breaks
// ansible-lint rules; the scanner only warns, so every launch goes on); the node is disabled after the
// project's sync, so the jobs stay pending and do not load the machine.
//
//   npm run bench:scanners                   PGlite, or PostgreSQL when POSTGRES_HOST is set
//   npm run bench:scanners -- --db=both      both
//
// BENCH_LAUNCHES (20) plain and cached launches, BENCH_COLD_LAUNCHES (5) cold ones per tool.
import { performance } from 'node:perf_hooks';
import type { TestApp } from '../test/helpers/app.ts';
import { newInventory, newJobTemplate, newOrg, newProject } from '../test/helpers/factories.ts';
import { LINT_FILES } from '../test/helpers/scanners.ts';
import { appOn } from './lib/app.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { mean, ms, percentile, table } from './lib/stats.ts';

const LAUNCHES = intEnv('BENCH_LAUNCHES', 20);
const COLD_LAUNCHES = intEnv('BENCH_COLD_LAUNCHES', 5);

/** A configuration no scan has used yet, changing nothing the tool finds. */
const COLD_CONFIG: Record<string, (n: number) => string> = {
  'ansible-lint': (n) => `skip_list:\n  - bench-${n}\n`,
  yamllint: (n) => `extends: default\nignore: bench-${n}\n`,
};

async function timedLaunches(t: TestApp, template: number, count: number, before: (i: number) => Promise<void> = async () => undefined): Promise<number[]> {
  const took: number[] = [];
  for (let i = 0; i < count; i++) {
    await before(i);
    const started = performance.now();
    const res = await t.post(`/api/v2/job_templates/${template}/launch/`, {});
    took.push(performance.now() - started);
    if (res.status !== 201) throw new Error(`launch answered ${res.status}: ${res.text}`);
    if (res.body.job_explanation) throw new Error(`a scan did not finish ok: ${res.body.job_explanation}`);
  }
  return took.sort((a, b) => a - b);
}

const row = (db: DbChoice, what: string, took: number[], baseline: number[]) =>
  [db, what, String(took.length), ms(percentile(took, 50)), ms(percentile(took, 99)), ms(mean(took)), ms(mean(took) - mean(baseline))];

async function measure(choice: DbChoice): Promise<string[][]> {
  const t = await appOn(choice);
  try {
    const org = (await newOrg(t)).id;
    const inventory = (await newInventory(t, org, { hosts: ['localhost'] })).id;
    const project = (await newProject(t, org, { files: LINT_FILES })).id;
    const template = (await newJobTemplate(t, { project, inventory, playbook: 'lint.yml' })).id;
    await t.db.query('UPDATE instances SET enabled = false');
    const settings = async (enabled: boolean) => {
      const res = await t.patch('/api/v2/settings/security/', { SCANNER_ENABLED: enabled });
      if (res.status !== 200) throw new Error(res.text);
    };
    await settings(false);
    await timedLaunches(t, template, 3);
    const plain = await timedLaunches(t, template, LAUNCHES);
    await settings(true);
    const rows = [row(choice, 'plain launch (baseline)', plain, plain)];
    for (const tool of ['ansible-lint', 'yamllint']) {
      const made = await t.post('/api/v2/scanners/', { name: `bench ${tool}`, organization: org, tool, enforcement: 'enforce', severity_threshold: 'critical' });
      if (made.status !== 201) throw new Error(made.text);
      const scanner = made.body.id;
      let serial = 0;
      const cold = await timedLaunches(t, template, COLD_LAUNCHES, async () => {
        await t.patch(`/api/v2/scanners/${scanner}/`, { config: COLD_CONFIG[tool](++serial) });
      });
      const cached = await timedLaunches(t, template, LAUNCHES);
      rows.push(row(choice, `${tool}, cold scan`, cold, plain), row(choice, `${tool}, cached`, cached, plain));
      await t.patch(`/api/v2/scanners/${scanner}/`, { enabled: false });
    }
    return rows;
  } finally {
    await t.close();
  }
}

const rows: string[][] = [];
for (const choice of databases()) rows.push(...(await measure(choice)));
console.log(table(['database', 'launch', 'launches', 'p50 ms', 'p99 ms', 'mean ms', 'added ms (mean)'], rows));
