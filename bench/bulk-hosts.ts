// POST /api/v2/bulk/host_create/ with 10,000 hosts in one request (BULK_HOST_MAX_CREATE raised),
// beside a baseline of the same run: one plain multi-row INSERT of 10,000 hosts into another inventory.
//
//   npm run bench:bulk-hosts                      PGlite, or PostgreSQL when POSTGRES_HOST is set
//   npm run bench:bulk-hosts -- --db=both         both, one after the other
//
// Knobs (environment): BENCH_HOSTS (10000), BENCH_RUNS (3: each run fills a new inventory).
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { appOn } from './lib/app.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { mean, table } from './lib/stats.ts';

const HOSTS = intEnv('BENCH_HOSTS', 10_000);
const RUNS = intEnv('BENCH_RUNS', 3);

const hostsOf = (run: number) => Array.from({ length: HOSTS }, (_, i) => ({
  name: `bulk${run}-host${String(i).padStart(5, '0')}.example.com`,
  description: `rack r${i % 40}`,
  enabled: i % 10 !== 0,
  instance_id: `i-${run}-${i}`,
  variables: JSON.stringify({ ansible_host: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, role: ['web', 'db', 'cache'][i % 3] }),
}));

async function runOn(choice: DbChoice) {
  const t = await appOn(choice, { dispatcher: false });
  try {
    const [{ version }] = await t.db.query<{ version: string }>(`SELECT current_setting('server_version') AS version`);
    const org = (await t.post('/api/v2/organizations/', { name: 'bulk bench' })).body.id;
    if ((await t.patch('/api/v2/settings/bulk/', { BULK_HOST_MAX_CREATE: HOSTS })).status !== 200) throw new Error('could not raise BULK_HOST_MAX_CREATE');
    const api: number[] = [];
    const baseline: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const inventory = (await t.post('/api/v2/inventories/', { name: `api ${run}`, organization: org })).body.id;
      const body = { inventory, hosts: hostsOf(run) };
      let started = performance.now();
      const res = await t.post('/api/v2/bulk/host_create/', body);
      api.push(performance.now() - started);
      if (res.status !== 201 || res.body.hosts.length !== HOSTS) throw new Error(`bulk host_create answered ${res.status}: ${res.text.slice(0, 300)}`);
      const total = (await t.get(`/api/v2/inventories/${inventory}/`)).body.total_hosts;
      if (total !== HOSTS) throw new Error(`the inventory counts ${total} hosts`);

      const plain = (await t.post('/api/v2/inventories/', { name: `plain ${run}`, organization: org })).body.id;
      const rows = hostsOf(run);
      const params: unknown[] = [plain];
      const tuples = rows.map((h) => `($1, $${params.push(h.name)}, $${params.push(h.description)}, $${params.push(h.enabled)}, $${params.push(h.instance_id)}, $${params.push(h.variables)})`);
      started = performance.now();
      await t.db.query(`INSERT INTO hosts (inventory_id, name, description, enabled, instance_id, variables) VALUES ${tuples.join(', ')}`, params);
      baseline.push(performance.now() - started);
      console.log(`   ${choice}: run ${run + 1} of ${RUNS}: API ${(api[run] / 1000).toFixed(2)} s, plain INSERT ${(baseline[run] / 1000).toFixed(2)} s`);
    }
    return { choice, version, api, baseline };
  } finally {
    await t.close();
  }
}

console.log(`Drover bulk host creation benchmark: ${HOSTS.toLocaleString('en')} hosts per request, ${RUNS} runs`);
console.log(`  Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'})`);
const reports = [];
for (const choice of databases()) reports.push(await runOn(choice));
const s = (v: number) => (v / 1000).toFixed(2);
for (const r of reports) {
  console.log(`\n### ${r.choice === 'postgres' ? `PostgreSQL ${r.version}` : `PGlite (PostgreSQL ${r.version}, embedded)`}`);
  console.log(table(['what', 'mean s', 'min s', 'max s', 'hosts/s (mean)'], [
    ['POST /bulk/host_create/ (whole request)', s(mean(r.api)), s(Math.min(...r.api)), s(Math.max(...r.api)), Math.round(HOSTS / (mean(r.api) / 1000)).toLocaleString('en')],
    ['baseline: one multi-row INSERT', s(mean(r.baseline)), s(Math.min(...r.baseline)), s(Math.max(...r.baseline)), Math.round(HOSTS / (mean(r.baseline) / 1000)).toLocaleString('en')],
  ]));
  console.log(`  The request costs ${(mean(r.api) / mean(r.baseline)).toFixed(1)}x the plain INSERT.`);
}
const pg = reports.find((r) => r.choice === 'postgres');
if (pg) console.log(`\nGoal: ${HOSTS.toLocaleString('en')} hosts in one request under 2 s on PostgreSQL. Here: ${s(mean(pg.api))} s (${mean(pg.api) < 2000 ? 'met' : 'not met'}).`);
