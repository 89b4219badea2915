// One inventory update of a large inventory through the real path: POST /inventory_sources/{id}/update/,
// the dispatcher runs ansible-inventory on the source, the import writes hosts, groups and links.
//
//   npm run bench:inventory-import                        PGlite, or PostgreSQL when POSTGRES_HOST is set
//   npm run bench:inventory-import -- --db=both            both, one after the other
//
// Knobs (environment): BENCH_HOSTS (10000), BENCH_GROUPS (500), BENCH_RUNS (2: the first import, then
// re-imports of the same inventory), BENCH_FORMAT (script: a dynamic inventory script printing JSON;
// yaml: the same inventory as YAML text, which ansible-inventory reads much more slowly).
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { TestApp } from '../test/helpers/app.ts';
import { appOn } from './lib/app.ts';
import { waitForRun } from '../test/helpers/jobs.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { table } from './lib/stats.ts';

const HOSTS = intEnv('BENCH_HOSTS', 10_000);
const GROUPS = intEnv('BENCH_GROUPS', 500);
const RUNS = intEnv('BENCH_RUNS', 2);
const FORMAT = process.env.BENCH_FORMAT === 'yaml' ? 'yaml' : 'script';

/**
 * A dynamic inventory: hosts spread over the groups (each host in two), groups nested ten to a
 * parent, a few variables on every host and group.
 */
const GENERATOR = `
import json, sys
H, G = ${HOSTS}, ${GROUPS}
hostvars, groups = {}, {}
for g in range(G):
    groups['group%03d' % g] = {'hosts': [], 'children': [], 'vars': {'group_index': g, 'tier': 'tier%d' % (g % 5)}}
for i in range(H):
    name = 'host%05d.example.com' % i
    hostvars[name] = {'ansible_host': '10.%d.%d.%d' % (i // 65536, (i // 256) % 256, i % 256), 'rack': 'r%02d' % (i % 40),
                      'role': ('web', 'db', 'cache')[i % 3], 'state': 'stopped' if i % 10 == 0 else 'running'}
    groups['group%03d' % (i % G)]['hosts'].append(name)
    groups['group%03d' % ((i * 7 + 3) % G)]['hosts'].append(name)
for g in range(1, G):
    groups['group%03d' % ((g - 1) // 10)]['children'].append('group%03d' % g)
out = {'_meta': {'hostvars': hostvars}, 'all': {'children': ['group000'], 'vars': {'bench': True}}}
out.update(groups)
`;

const SCRIPT = `#!/usr/bin/env python3${GENERATOR}
if len(sys.argv) > 1 and sys.argv[1] == '--host':
    print('{}')
else:
    json.dump(out, sys.stdout)
`;

/** The same inventory in Ansible's YAML form (BENCH_FORMAT=yaml), made by running the generator once. */
async function yamlInventory(): Promise<unknown> {
  const { execFileSync } = await import('node:child_process');
  const json = JSON.parse(execFileSync('python3', ['-c', `${GENERATOR}\njson.dump(out, sys.stdout)`], { maxBuffer: 256 * 1024 * 1024 }).toString());
  const hostvars = json._meta.hostvars;
  const children: Record<string, unknown> = {};
  for (const [name, group] of Object.entries<any>(json)) {
    if (name === '_meta' || name === 'all') continue;
    children[name] = {
      vars: group.vars,
      hosts: Object.fromEntries(group.hosts.map((h: string) => [h, hostvars[h]])),
      children: Object.fromEntries(group.children.map((c: string) => [c, {}])),
    };
  }
  return { all: { vars: json.all.vars, children } };
}

interface Run {
  totalSeconds: number;
  elapsed: number;
  readSeconds: number;
  importSeconds: number;
  summary: string;
}

const figure = (stdout: string, pattern: RegExp) => Number(pattern.exec(stdout)?.[1] ?? NaN);

async function update(t: TestApp, sourceUrl: string): Promise<Run> {
  const started = performance.now();
  const res = await t.post(`${sourceUrl}update/`);
  if (res.status !== 202) throw new Error(`update answered ${res.status}: ${res.text}`);
  const done = await waitForRun(t, res.body.url, 10 * 60_000);
  const totalSeconds = (performance.now() - started) / 1000;
  const stdout = (await t.get(`${res.body.url}stdout/?format=txt`)).text;
  if (done.status !== 'successful') throw new Error(`update ${done.status}: ${done.job_explanation}\n${stdout.slice(-2000)}`);
  return {
    totalSeconds,
    elapsed: done.elapsed,
    readSeconds: figure(stdout, /ansible-inventory took ([\d.]+) s/),
    importSeconds: figure(stdout, /Inventory import completed in ([\d.]+) s/),
    summary: /^Hosts: .*$/m.exec(stdout)?.[0] ?? '',
  };
}

async function runOn(choice: DbChoice): Promise<{ choice: DbChoice; version: string; runs: Run[] }> {
  const t = await appOn(choice);
  try {
    const [{ server_version: version }] = await t.db.query<{ server_version: string }>('SHOW server_version');
    const org = (await t.get('/api/v2/organizations/Default/')).body.id;
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Bench', organization: org })).body.id;
    const sourceVars = FORMAT === 'script' ? { script: SCRIPT } : { inventory: await yamlInventory() };
    const source = await t.post(`/api/v2/inventories/${inventory}/inventory_sources/`, {
      name: 'bench', source: 'file', source_vars: sourceVars, overwrite: true, enabled_var: 'state', enabled_value: 'running',
    });
    if (source.status !== 201) throw new Error(`creating the source: ${source.status} ${source.text.slice(0, 500)}`);
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(await update(t, source.body.url));
      console.log(`   ${choice}: update ${i + 1} of ${RUNS} done (${runs[i].summary})`);
    }
    const counts = (await t.get(`/api/v2/inventories/${inventory}/`)).body;
    if (counts.total_hosts !== HOSTS || counts.total_groups !== GROUPS) {
      throw new Error(`expected ${HOSTS} hosts and ${GROUPS} groups, the inventory has ${counts.total_hosts} and ${counts.total_groups}`);
    }
    return { choice, version, runs };
  } finally {
    await t.close();
  }
}

console.log(`Drover inventory import benchmark: ${HOSTS.toLocaleString('en')} hosts, ${GROUPS} groups, source: ${FORMAT === 'script' ? 'inventory script (JSON)' : 'YAML inventory'}`);
console.log(`  Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'})`);
const reports = [];
for (const choice of databases()) reports.push(await runOn(choice));
for (const report of reports) {
  console.log(`\n### ${report.choice === 'postgres' ? `PostgreSQL ${report.version}` : `PGlite (PostgreSQL ${report.version}, embedded)`}`);
  console.log(
    table(
      ['update', 'total s', 'run s', 'ansible-inventory s', 'import s', 'hosts/s (total)', 'hosts/s (import)'],
      report.runs.map((r, i) => [
        i === 0 ? '1 (first import)' : `${i + 1} (re-import)`,
        r.totalSeconds.toFixed(2),
        Number(r.elapsed).toFixed(2),
        r.readSeconds.toFixed(2),
        r.importSeconds.toFixed(2),
        Math.round(HOSTS / r.totalSeconds).toLocaleString('en'),
        Math.round(HOSTS / r.importSeconds).toLocaleString('en'),
      ]),
    ),
  );
}
const server = reports.find((r) => r.choice === 'postgres');
if (server) {
  const first = server.runs[0].totalSeconds;
  console.log(`\nGoal: the first import under 10 s on PostgreSQL. Here: ${first.toFixed(2)} s (${first < 10 ? 'met' : 'not met'}).`);
}
