// Whether one caller can stall the service: GET /api/v2/ping/ latency idle (the baseline), then
// while hostile requests of one kind run back to back, then while all kinds run together.
//
//   npm run bench:stall                    PGlite, or PostgreSQL when POSTGRES_HOST is set
//   npm run bench:stall -- --db=both       both
//
// BENCH_PINGS (200) sets the pings measured per phase, BENCH_HOSTS (100000) the hosts seeded for
// the heavy list query, BENCH_HOSTILE_CLIENTS (1) the clients sending each kind at once.
// The goal: /ping/ p99 under 50 ms on both databases while every kind runs.
import { performance } from 'node:perf_hooks';
import { ADMIN, basicAuth, type TestApp } from '../test/helpers/app.ts';
import { appOn } from './lib/app.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';
import { ms, percentile, table } from './lib/stats.ts';

const PINGS = intEnv('BENCH_PINGS', 200);
const HOSTS = intEnv('BENCH_HOSTS', 100_000);
const CLIENTS = intEnv('BENCH_HOSTILE_CLIENTS', 1);
const GOAL_P99_MS = 50;
const AUTH = basicAuth(ADMIN);

interface Hostile {
  name: string;
  method: 'GET' | 'POST';
  url: string;
  body?: string;
  /** Sent without credentials, as monitors and load balancers call /ping/. */
  anonymous?: boolean;
}

/** Seeds what the hostile requests need and answers them. */
async function hostileRequests(t: TestApp): Promise<Hostile[]> {
  const org = (await t.get('/api/v2/organizations/Default/')).body.id;
  const inventory = (await t.post('/api/v2/inventories/', { name: 'Stall', organization: org })).body.id;
  // Long descriptions that no filter below matches: every row is read and tested.
  await t.db.query(
    `INSERT INTO hosts (name, inventory_id, description)
     SELECT 'stall-' || g, $1, repeat(md5(g::text), 8) FROM generate_series(1, $2::int) g`,
    [inventory, HOSTS],
  );
  await t.db.query('VACUUM ANALYZE hosts');
  const notification = (await t.post('/api/v2/notification_templates/', {
    name: 'Stall', organization: org, notification_type: 'webhook', notification_configuration: { url: 'http://127.0.0.1:9/stall', headers: {} },
  })).body.id;
  const rule = await t.post('/api/v2/event_rules/', {
    name: 'Stall', organization: org, webhook_path: 'stall',
    conditions: [{ jinja2_expression: "(range(300000) | join(',')) | length > 0", description: 'heavy' }],
    actions: [{ action_type: 'send_notification', target_id: notification, description: 'never sent: only tested' }],
  });
  if (rule.status !== 201) throw new Error(`event rule: ${rule.text}`);
  const regex = new URLSearchParams(Array.from({ length: 10 }, () => ['or__name__regex', '.{0,100}'.repeat(24)])).toString();
  const depth = 400_000;
  return [
    { name: 'rrule preview that never occurs', method: 'POST', url: '/api/v2/schedules/preview/', body: JSON.stringify({ rrule: 'DTSTART:20250101T000000Z RRULE:FREQ=DAILY;INTERVAL=1;BYYEARDAY=366;BYMONTH=2' }) },
    { name: '10 regex filters .{0,100}x24', method: 'GET', url: `/api/v2/hosts/?${regex}` },
    { name: `list of ${HOSTS.toLocaleString('en')} hosts, 3 icontains, ordered`, method: 'GET', url: '/api/v2/hosts/?description__icontains=zzz&or__description__icontains=yyy&or__name__icontains=xxx&order_by=-description' },
    { name: 'heavy Jinja (event rule test)', method: 'POST', url: `/api/v2/event_rules/${rule.body.id}/test/`, body: JSON.stringify({ payload: { a: 1 } }) },
    { name: `JSON body nested ${depth.toLocaleString('en')} deep`, method: 'POST', url: '/api/v2/job_templates/', body: `{"name":"deep","extra_vars":${'['.repeat(depth)}${']'.repeat(depth)}}` },
  ];
}

const latencies = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return [ms(percentile(sorted, 50)), ms(percentile(sorted, 99)), ms(sorted[sorted.length - 1])];
};

async function measure(choice: DbChoice): Promise<string[][]> {
  const t = await appOn(choice, { dispatcher: false });
  try {
    const hostile = await hostileRequests(t);
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const send = async (request: Hostile) => {
      const started = performance.now();
      const res = await fetch(address + request.url, {
        method: request.method, body: request.body,
        headers: { ...(request.anonymous ? {} : { authorization: AUTH }), ...(request.body ? { 'content-type': 'application/json' } : {}) },
      });
      await res.arrayBuffer();
      return { status: res.status, ms: performance.now() - started };
    };
    const pings = async () => {
      const times: number[] = [];
      for (let i = 0; i < PINGS; i++) times.push((await send({ name: 'ping', method: 'GET', url: '/api/v2/ping/', anonymous: true })).ms);
      return times;
    };
    /** /ping/ latencies while `kinds` are sent back to back, and what each kind answered. */
    const under = async (kinds: Hostile[]) => {
      let stop = false;
      const answers = new Map<string, { statuses: Set<number>; times: number[] }>(kinds.map((k) => [k.name, { statuses: new Set(), times: [] }]));
      const loops = kinds.flatMap((kind) => Array.from({ length: CLIENTS }, async () => {
        while (!stop) {
          const answer = await send(kind);
          answers.get(kind.name)!.statuses.add(answer.status);
          answers.get(kind.name)!.times.push(answer.ms);
        }
      }));
      // Let every kind be under way before timing.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const times = await pings();
      stop = true;
      await Promise.all(loops);
      return { times, answers };
    };

    await pings(); // warm-up
    const rows: string[][] = [[choice, 'idle (baseline)', ...latencies(await pings()), '-', '-']];
    for (const kind of hostile) {
      const { times, answers } = await under([kind]);
      const answer = answers.get(kind.name)!;
      rows.push([choice, kind.name, ...latencies(times), [...answer.statuses].join(','), ms(percentile([...answer.times].sort((a, b) => a - b), 50))]);
    }
    const all = await under(hostile);
    rows.push([choice, 'all of them at once', ...latencies(all.times), '-', '-']);
    return rows;
  } finally {
    await t.close();
  }
}

const rows: string[][] = [];
for (const choice of databases()) rows.push(...(await measure(choice)));
console.log(table(['database', 'while running', 'ping p50', 'p99', 'max', 'hostile status', 'hostile p50'], rows));
console.log(`${PINGS} pings per row, ${CLIENTS} client(s) per hostile kind; all figures in ms. Goal: ping p99 under ${GOAL_P99_MS} ms on both databases while all kinds run.`);
