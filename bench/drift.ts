// Drift detection: what one job that gathered facts on 5,000 hosts queues. An inventory of 5,000 hosts
// with 300 top-level facts each (16 to 21 KB of JSON, written straight into hosts.ansible_facts), a
// first capture of all of them (every host's baseline snapshot), then rounds in which 1% of the hosts
// change a package version, the kernel and their IPv4 list, each timed as `captureFacts` over all the
// hosts; a last round also changes ansible_date_time on every host, as a real gathering does. Three
// alert rules with a webhook template are enabled; without the dispatcher notifications stay queued.
// The baseline of the same run: reading every host's facts and hashing them in Node, what a capture
// without the database's equality prefilter would pay at least.
//
//   npm run bench:drift                    PGlite, or PostgreSQL when POSTGRES_HOST is set
//   npm run bench:drift -- --db=both       both
//
// BENCH_HOSTS (5000), BENCH_KEYS (300 top-level facts), BENCH_CHANGE_PERCENT (1), BENCH_ROUNDS (3).
// BENCH_EXPLAIN=1 prints the plan of one batch's prefilter after the rounds.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Database, Queryable } from '../src/db/database.ts';
import type { TestApp } from '../test/helpers/app.ts';
import { captureFacts, type CaptureOutcome } from '../src/drift/capture.ts';
import { factsHash } from '../src/drift/canonical-json.ts';
import { appOn } from './lib/app.ts';
import { hostFacts } from './lib/facts.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { mean, table } from './lib/stats.ts';

const HOSTS = intEnv('BENCH_HOSTS', 5000);
const KEYS = intEnv('BENCH_KEYS', 300);
const CHANGE_PERCENT = intEnv('BENCH_CHANGE_PERCENT', 1);
const ROUNDS = intEnv('BENCH_ROUNDS', 3);
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const GOAL_HOSTS_PER_SECOND = 2000;
const WRITE_BATCH = 250;
// The capture's own batch size, so that the baseline reads as it does.
const READ_BATCH = 500;
const ROLES = ['web', 'db', 'app', 'cache'];

/** An organization, its inventory of HOSTS hosts with their facts, the alert rules and their webhook. */
async function setUp(t: TestApp): Promise<number[]> {
  const created = async (path: string, body: Record<string, unknown>) => {
    const res = await t.post(path, body);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body.id as number;
  };
  const organization = await created('/api/v2/organizations/', { name: 'Drift bench' });
  const inventory = await created('/api/v2/inventories/', { name: 'Fleet', organization });
  const ids: number[] = [];
  for (let start = 0; start < HOSTS; start += WRITE_BATCH) {
    const rows = [];
    for (let i = start; i < Math.min(HOSTS, start + WRITE_BATCH); i++) {
      const name = `${ROLES[i % ROLES.length]}-${String(i).padStart(5, '0')}`;
      rows.push({ name, facts: hostFacts(i, name, KEYS) });
    }
    const made = await t.db.query<{ id: number }>(
      `INSERT INTO hosts (name, inventory_id, ansible_facts, ansible_facts_modified)
       SELECT x.name, $1, x.facts, now() FROM jsonb_to_recordset($2::jsonb) AS x(name text, facts jsonb) RETURNING id`,
      [inventory, JSON.stringify(rows)],
    );
    ids.push(...made.map((h) => h.id));
  }
  const hook = await created('/api/v2/notification_templates/', {
    name: 'Drift hook', organization, notification_type: 'webhook', notification_configuration: { url: 'http://127.0.0.1:9/drift', headers: {} },
  });
  const rules = [
    { name: 'Kernel changed', categories: ['kernel'], severity_min: 'critical', cooldown_minutes: 0 },
    { name: 'Packages on web hosts', categories: ['packages'], host_filter: 'web-*', severity_min: 'medium', cooldown_minutes: 0 },
    { name: 'Busy host', severity_min: 'medium', threshold_count: 3, threshold_window_minutes: 60, cooldown_minutes: 30 },
  ];
  for (const rule of rules) await created('/api/v2/drift_alert_rules/', { ...rule, organization, notification_template: hook });
  await t.db.query('VACUUM ANALYZE hosts');
  return ids.sort((a, b) => a - b);
}

/** Changes a package version, the kernel and the IPv4 list of CHANGE_PERCENT% of the hosts, spread over all of them. */
async function changeSome(db: Database, ids: number[], round: number): Promise<number> {
  const count = Math.max(1, Math.round((ids.length * CHANGE_PERCENT) / 100));
  const stride = Math.max(1, Math.floor(ids.length / count));
  // A different host of each stride every round, and neighbours of different roles (web-, db-...).
  const changed = Array.from({ length: count }, (_, k) => ids[(k * stride + ((k + round) % stride)) % ids.length]);
  await db.query(
    `UPDATE hosts SET ansible_facts_modified = now(), ansible_facts = jsonb_set(ansible_facts, ARRAY['ansible_packages', $2, '0', 'version'], to_jsonb($3::text))
       || jsonb_build_object('ansible_kernel', $4::text,
            'ansible_all_ipv4_addresses', (ansible_facts->'ansible_all_ipv4_addresses') || to_jsonb('10.99.' || $5::int || '.' || (id % 250)))
     WHERE id = ANY($1::int[])`,
    [changed, `pkg-${round % 50}`, `9.${round}.0`, `6.1.0-${14 + round}-amd64`, round % 256],
  );
  return changed.length;
}

interface Phases {
  [phase: string]: number;
}

interface SeenQuery {
  text: string;
  params: readonly unknown[] | undefined;
}

/** Splits the database time of captures by statement, and the rest of each transaction into Node's share. */
function timePhases(db: Database): { phases: Phases; prefilter: () => SeenQuery | undefined; stop: () => void } {
  const phases: Phases = {};
  let prefilter: SeenQuery | undefined;
  const add = (phase: string, ms: number) => (phases[phase] = (phases[phase] ?? 0) + ms);
  const phaseOf = (text: string) =>
    /LEFT JOIN LATERAL/.test(text) ? 'select changed hosts (prefilter)' : /^\s*INSERT INTO host_fact_snapshots/.test(text) ? 'insert snapshots' : /^\s*INSERT INTO drift_detections/.test(text) ? 'insert detections' : 'alert rules';
  const original = db.transaction.bind(db);
  db.transaction = (<T>(fn: (tx: Queryable) => Promise<T>) => {
    const started = performance.now();
    let inQueries = 0;
    let inFn = 0;
    return original(async (tx) => {
      const timed: Queryable = {
        ...tx,
        query: async (text, params) => {
          const sent = performance.now();
          try {
            return await tx.query(text, params);
          } finally {
            const took = performance.now() - sent;
            inQueries += took;
            add(phaseOf(text), took);
            if (!prefilter && phaseOf(text).startsWith('select')) prefilter = { text, params };
          }
        },
        queryMany: (statements) => tx.queryMany(statements),
        exec: (script) => tx.exec(script),
      };
      const entered = performance.now();
      try {
        return await fn(timed);
      } finally {
        inFn = performance.now() - entered;
        add('Node: hashing, diffs', inFn - inQueries);
      }
    }).finally(() => add('begin and commit', performance.now() - started - inFn));
  }) as Database['transaction'];
  return { phases, prefilter: () => prefilter, stop: () => (db.transaction = original) };
}

/** Seconds to read every host's facts and hash each in Node. */
async function readAndHash(db: Database, ids: number[]): Promise<number> {
  const started = performance.now();
  for (let start = 0; start < ids.length; start += READ_BATCH) {
    const rows = await db.query<{ id: number; ansible_facts: unknown }>('SELECT id, ansible_facts FROM hosts WHERE id = ANY($1::int[])', [ids.slice(start, start + READ_BATCH)]);
    for (const row of rows) factsHash(row.ansible_facts);
  }
  return (performance.now() - started) / 1000;
}

async function timedCapture(db: Database, ids: number[]): Promise<{ seconds: number; outcome: CaptureOutcome }> {
  const started = performance.now();
  const outcome = await captureFacts(db, null, ids);
  return { seconds: (performance.now() - started) / 1000, outcome };
}

/** The plan of a capture's prefilter on the current data (FOR UPDATE included: it locks only the rows it returns). */
async function explainPrefilter(db: Database, query: SeenQuery) {
  const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${query.text}`, query.params);
  const shown = plan.map((r) => `    | ${r['QUERY PLAN'].replace(/'\{[\d,]+\}'/g, "'{…ids}'")}`);
  console.log(`\n  The prefilter of one batch of a capture:\n${shown.join('\n')}`);
}

async function runOn(choice: DbChoice) {
  const t = await appOn(choice, { dispatcher: false });
  try {
    const [{ server_version: version }] = await t.db.query<{ server_version: string }>('SHOW server_version');
    const db = `${choice === 'postgres' ? 'PostgreSQL' : 'PGlite'} ${version.split(' ')[0]}`;
    const seeding = performance.now();
    const ids = await setUp(t);
    const [{ bytes }] = await t.db.query<{ bytes: number }>('SELECT avg(length(ansible_facts::text))::int AS bytes FROM hosts WHERE id = ANY($1::int[])', [ids]);
    console.log(`  ${db}: ${ids.length.toLocaleString('en')} hosts of ${KEYS} facts (${(bytes / 1024).toFixed(1)} KB of JSON each) written in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
    const first = await timedCapture(t.db, ids);
    await t.db.query('VACUUM ANALYZE host_fact_snapshots');
    const rounds: { seconds: number; outcome: CaptureOutcome; changed: number }[] = [];
    const naive: number[] = [];
    const { phases, prefilter, stop } = timePhases(t.db);
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        const changed = await changeSome(t.db, ids, round);
        naive.push(await readAndHash(t.db, ids));
        rounds.push({ ...(await timedCapture(t.db, ids)), changed });
      }
    } finally {
      stop();
    }
    const seen = prefilter();
    if (EXPLAIN && seen) await explainPrefilter(t.db, seen);
    // A real gathering also changes ansible_date_time on every host: a volatile fact, so no drift, but a snapshot each.
    await changeSome(t.db, ids, ROUNDS + 1);
    await t.db.query(`UPDATE hosts SET ansible_facts = jsonb_set(ansible_facts, '{ansible_date_time,epoch}', to_jsonb(extract(epoch FROM now())::bigint::text)) WHERE id = ANY($1::int[])`, [ids]);
    const gatheredTiming = timePhases(t.db);
    const gathered = await timedCapture(t.db, ids).finally(gatheredTiming.stop);
    const [{ queued }] = await t.db.query<{ queued: number }>("SELECT count(*)::int AS queued FROM notifications WHERE event = 'drift_alert' AND status = 'pending'");
    console.log(`  ${db}: ${queued} drift alert notifications queued (no dispatcher: none sent)`);
    return { db, choice, ids, first, rounds, naive, phases, gathered, gatheredPhases: gatheredTiming.phases };
  } finally {
    await t.close();
  }
}

console.log(`Drover drift detection benchmark: captureFacts over ${HOSTS.toLocaleString('en')} hosts of ${KEYS} facts, ${CHANGE_PERCENT}% changed per round, ${ROUNDS} rounds`);
console.log(`  Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), load average ${os.loadavg()[0].toFixed(1)}`);
const rows: string[][] = [];
const phaseRows: string[][] = [];
const perRound = (values: number[]) => values.join(' / ');
for (const choice of databases()) {
  const r = await runOn(choice);
  const n = r.ids.length;
  const seconds = r.rounds.map((x) => x.seconds);
  const out = r.first.outcome;
  rows.push([`${r.db}: first capture (baselines)`, r.first.seconds.toFixed(2), '-', (n / r.first.seconds).toFixed(0), String(out.snapshots), String(out.detections), String(out.alerts)]);
  rows.push([
    `${r.db}: capture, ${r.rounds[0].changed} hosts changed`, mean(seconds).toFixed(2), Math.max(...seconds).toFixed(2), (n / mean(seconds)).toFixed(0),
    perRound(r.rounds.map((x) => x.outcome.snapshots)), perRound(r.rounds.map((x) => x.outcome.detections)), perRound(r.rounds.map((x) => x.outcome.alerts)),
  ]);
  const g = r.gathered.outcome;
  rows.push([`${r.db}: capture, the same + every ansible_date_time`, r.gathered.seconds.toFixed(2), '-', (n / r.gathered.seconds).toFixed(0), String(g.snapshots), String(g.detections), String(g.alerts)]);
  rows.push([`${r.db}: read + hash every host (baseline)`, mean(r.naive).toFixed(2), Math.max(...r.naive).toFixed(2), (n / mean(r.naive)).toFixed(0), '-', '-', '-']);
  const total = Object.values(r.phases).reduce((a, b) => a + b, 0);
  const gatheredTotal = Object.values(r.gatheredPhases).reduce((a, b) => a + b, 0);
  for (const [phase, ms] of Object.entries(r.phases)) {
    const all = r.gatheredPhases[phase] ?? 0;
    phaseRows.push([`${r.db}: ${phase}`, (ms / ROUNDS).toFixed(0), `${((100 * ms) / total).toFixed(0)}%`, all.toFixed(0), `${((100 * all) / gatheredTotal).toFixed(0)}%`]);
  }
}
console.log(table(['what', 'mean s', 'worst s', 'hosts/s', 'snapshots', 'detections', 'alerts'], rows));
console.log('\n  Where a capture goes: the rounds (mean), and the round with every ansible_date_time changed:');
console.log(table(['phase', 'ms', 'share', 'all changed ms', 'share'], phaseRows));
console.log(`Goal: on PostgreSQL, at least ${GOAL_HOSTS_PER_SECOND.toLocaleString('en')} hosts/s for a capture round.`);
