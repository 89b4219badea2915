// Latency of GET /api/v2/users/ over a large seeded database, on PGlite and/or PostgreSQL.
//
//   npm run bench                                   PGlite, or PostgreSQL when POSTGRES_HOST is set
//   BENCH_DB=both POSTGRES_HOST=127.0.0.1 npm run bench    both, one after the other, in one process
//   npm run bench -- --db=both                      the same as BENCH_DB=both
//
// Other knobs (environment): BENCH_USERS (50000), BENCH_ORGS (100), BENCH_REQUESTS (300 measured
// requests per scenario), BENCH_WARMUP (30), BENCH_TRANSPORT (http | inject), BENCH_EXPLAIN=1 (print the
// plan of every query of one request per scenario). It only prints figures.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { hash } from '@node-rs/argon2';
import { systemContextIn } from '../src/api/context.ts';
import { createObject } from '../src/api/crud.ts';
import { explain } from './lib/explain.ts';
import { mean, ms, percentile, table } from './lib/stats.ts';
import { ADMIN, basicAuth, createTestApp, type Credentials, type TestApp } from '../test/helpers/app.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';

type Transport = 'http' | 'inject';

const USERS = intEnv('BENCH_USERS', 50_000);
const ORGS = intEnv('BENCH_ORGS', 100);
const REQUESTS = intEnv('BENCH_REQUESTS', 300);
const WARMUP = intEnv('BENCH_WARMUP', 30);
/** BENCH_EXPLAIN=1 prints the plan (EXPLAIN ANALYZE) of every query one request of each scenario runs. */
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const TRANSPORT: Transport = process.env.BENCH_TRANSPORT === 'inject' ? 'inject' : 'http';
const MEMBER_PASSWORD = 'bench-member-password';
/** A last name given to every 150th user: ?search= on it matches a few hundred users (333 of 50,000). */
const RARE_LAST_NAME = 'Quartermaine';


const FIRST_NAMES = [
  'Ada', 'Alan', 'Barbara', 'Brian', 'Carol', 'Charles', 'Diana', 'Donald', 'Edsger', 'Elena', 'Frances', 'Fred', 'Grace', 'Guido',
  'Hedy', 'Ivan', 'Joan', 'John', 'Katherine', 'Ken', 'Linus', 'Lynn', 'Margaret', 'Martin', 'Niklaus', 'Olga', 'Peter', 'Radia',
  'Rob', 'Sophie', 'Tim', 'Ursula', 'Vint', 'Whitfield', 'Xavier', 'Yukihiro', 'Zoe',
];
// 149 common last names plus RARE_LAST_NAME, which no other name, username or email contains.
const LAST_NAMES = [
  ...'Adams Allen Alvarez Anderson Bailey Baker Barnes Bell Bennett Brooks Brown Bryant Butler Campbell Carter Castillo Chavez Clark Coleman Collins Cook Cooper Cox Cruz Davis Diaz Edwards Evans Fisher Flores Ford Foster Garcia Gibson Gomez Gonzales Graham Gray Green Griffin Hall Hamilton Harris Hayes Henderson Hernandez Hill Howard Hughes Jackson James Jenkins Jimenez Johnson Jones Jordan Kelly Kennedy Kim King Lee Lewis Long Lopez Marshall Martin Martinez Mendoza Miller Mitchell Moore Morales Morgan Morris Murphy Murray Myers Nelson Nguyen Ortiz Owens Parker Patel Perez Perry Peterson Phillips Powell Price Ramirez Ramos Reed Reyes Reynolds Richardson Rivera Roberts Robinson Rodriguez Rogers Ross Ruiz Russell Sanchez Sanders Scott Simmons Smith Stewart Sullivan Taylor Thomas Thompson Torres Turner Vasquez Wagner Walker Wallace Ward Washington Watson Wells West White Williams Wilson Wood Wright Young Ziegler Abbott Blake Chandler Dalton Ellison Fletcher Gallagher Holloway Ingram Jennings Keller Lambert Mcdonald Norris Oconnor Pearson Quinn Rhodes'.split(' '),
  RARE_LAST_NAME,
];

interface Scenario {
  name: string;
  url: string;
  as: 'admin' | 'member';
}

/** page=1500 of 25 at 50,000 users: three quarters of the way through the list. */
const DEEP_PAGE = Math.max(1, Math.min(1500, Math.floor((USERS * 0.75) / 25)));

const SCENARIOS: Scenario[] = [
  { name: 'first page', url: '/api/v2/users/', as: 'admin' },
  { name: `deep page (page=${DEEP_PAGE})`, url: `/api/v2/users/?page=${DEEP_PAGE}`, as: 'admin' },
  { name: `search=${RARE_LAST_NAME.toLowerCase()}`, url: `/api/v2/users/?search=${RARE_LAST_NAME.toLowerCase()}`, as: 'admin' },
  { name: 'order_by=-username', url: '/api/v2/users/?order_by=-username', as: 'admin' },
  { name: 'order_by=email', url: '/api/v2/users/?order_by=email', as: 'admin' },
  { name: 'first page, org member', url: '/api/v2/users/', as: 'member' },
  // A related-path filter: each hop through organizations is limited to those the caller may see.
  { name: 'organizations__name__startswith, admin', url: '/api/v2/users/?organizations__name__startswith=Bench%20Org%2000', as: 'admin' },
  { name: 'organizations__name__startswith, org member', url: '/api/v2/users/?organizations__name__startswith=Bench%20Org%2000', as: 'member' },
];

interface Figures {
  scenario: Scenario;
  count: number;
  results: number;
  warmup: number[];
  measured: number[];
}

interface RunReport {
  db: DbChoice;
  version: string;
  seedSeconds: number;
  figures: Figures[];
}

/**
 * Seeds organizations through the framework (so each gets its roles and role graph as the API would
 * make them), then users sharing one password hash and one membership each in bulk SQL.
 */
async function seed(t: TestApp): Promise<Credentials> {
  const { db } = t;
  const passwordHash = await hash(MEMBER_PASSWORD);
  const organizations = t.services.resources.get('organization');
  await db.transaction(async (tx) => {
    for (let n = 1; n <= ORGS; n++) {
      const name = `Bench Org ${String(n).padStart(3, '0')}`;
      await createObject(tx, systemContextIn(t.services), organizations, { name, description: `Organization number ${n} of the benchmark`, max_hosts: 0, policy_enforcement: 'none' });
    }
    await tx.query(
      `INSERT INTO users (username, password, first_name, last_name, email)
       SELECT lower(f) || '.' || lower(l) || n, $2, f, l, lower(l) || '.' || lower(f) || '.' || n || '@example.com'
       FROM generate_series(1, $1::integer) AS n,
            LATERAL (SELECT ($3::text[])[1 + n % array_length($3::text[], 1)] AS f,
                            ($4::text[])[1 + n % array_length($4::text[], 1)] AS l) AS names`,
      [USERS, passwordHash, FIRST_NAMES, LAST_NAMES],
    );
    // User n of the seed belongs to organization n mod ORGS: it holds the organization's member_role.
    await tx.query(
      `WITH member_roles AS (
         SELECT r.id AS role_id, row_number() OVER (ORDER BY o.id) - 1 AS k
         FROM organizations o JOIN roles r ON r.content_type = 'organization' AND r.object_id = o.id AND r.role_field = 'member_role'
         WHERE o.name LIKE 'Bench Org %'),
       seeded AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM users WHERE NOT is_superuser)
       INSERT INTO role_users (role_id, user_id)
       SELECT m.role_id, s.id FROM seeded s JOIN member_roles m ON m.k = s.n % $1::integer`,
      [ORGS],
    );
  });
  // As after any bulk load: fresh planner statistics and visibility map.
  await db.exec('VACUUM ANALYZE');
  const [member] = await db.query<{ username: string }>('SELECT username FROM users WHERE NOT is_superuser ORDER BY id LIMIT 1');
  return { username: member.username, password: MEMBER_PASSWORD };
}

/** Answers a function sending one GET and answering status and body text. */
async function client(t: TestApp): Promise<{ get: (url: string, auth: string) => Promise<{ status: number; text: string }>; stop: () => Promise<void> }> {
  if (TRANSPORT === 'inject') {
    return {
      get: async (url, auth) => {
        const res = await t.app.inject({ method: 'GET', url, headers: { authorization: auth } });
        return { status: res.statusCode, text: res.body };
      },
      stop: async () => undefined,
    };
  }
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    get: async (url, auth) => {
      const res = await fetch(address + url, { headers: { authorization: auth } });
      return { status: res.status, text: await res.text() };
    },
    stop: async () => undefined, // t.close() closes the server
  };
}

async function runOn(choice: DbChoice): Promise<RunReport> {
  const pgHost = process.env.POSTGRES_HOST;
  // test/helpers pick the database from POSTGRES_HOST when an app is created.
  if (choice === 'postgres') process.env.POSTGRES_HOST = pgHost || '127.0.0.1';
  else delete process.env.POSTGRES_HOST;
  const label = choice === 'postgres' ? `PostgreSQL (${process.env.POSTGRES_HOST}:${process.env.POSTGRES_PORT ?? 5432})` : 'PGlite (embedded)';
  console.log(`\n== ${label}: creating a fresh database and seeding ${USERS.toLocaleString('en')} users in ${ORGS} organizations...`);
  const t = await createTestApp();
  if (pgHost === undefined) delete process.env.POSTGRES_HOST;
  else process.env.POSTGRES_HOST = pgHost;
  try {
    const started = performance.now();
    const member = await seed(t);
    const seedSeconds = (performance.now() - started) / 1000;
    const [{ server_version: version }] = await t.db.query<{ server_version: string }>('SHOW server_version');
    console.log(`   seeded in ${seedSeconds.toFixed(1)} s (PostgreSQL ${version})`);
    const http = await client(t);
    const auth = { admin: basicAuth(ADMIN), member: basicAuth(member) };
    const figures: Figures[] = [];
    for (const scenario of SCENARIOS) {
      const timed = async () => {
        const start = performance.now();
        const res = await http.get(scenario.url, auth[scenario.as]);
        const ms = performance.now() - start;
        if (res.status !== 200) throw new Error(`${scenario.name}: GET ${scenario.url} answered ${res.status}: ${res.text.slice(0, 300)}`);
        return { ms, text: res.text };
      };
      const warmup: number[] = [];
      let body: { count: number; results: unknown[] } | null = null;
      for (let i = 0; i < WARMUP; i++) {
        const r = await timed();
        warmup.push(r.ms);
        body ??= JSON.parse(r.text);
      }
      const measured: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const r = await timed();
        measured.push(r.ms);
        body ??= JSON.parse(r.text);
      }
      figures.push({ scenario, count: body!.count, results: body!.results.length, warmup, measured });
      if (EXPLAIN) await explain(t, () => http.get(scenario.url, auth[scenario.as]), scenario.name);
      console.log(`   ${scenario.name}: done`);
    }
    await http.stop();
    return { db: choice, version, seedSeconds, figures };
  } finally {
    await t.close();
  }
}



function printReport(report: RunReport): void {
  const name = report.db === 'postgres' ? `PostgreSQL ${report.version}` : `PGlite (PostgreSQL ${report.version}, embedded)`;
  console.log(`\n### ${name}`);
  console.log(`\nWarm-up: first ${WARMUP} requests of each scenario, not counted below (ms)`);
  console.log(
    table(
      ['scenario', 'first', 'mean', 'max'],
      report.figures.map((f) => [f.scenario.name, ms(f.warmup[0]), ms(mean(f.warmup)), ms(Math.max(...f.warmup))]),
    ),
  );
  console.log(`\nMeasured: ${REQUESTS} requests per scenario, one at a time (ms)`);
  console.log(
    table(
      ['scenario', 'count', 'rows', 'p50', 'p95', 'p99', 'max', 'mean'],
      report.figures.map((f) => {
        const s = [...f.measured].sort((a, b) => a - b);
        return [
          f.scenario.name,
          String(f.count),
          String(f.results),
          ms(percentile(s, 50)),
          ms(percentile(s, 95)),
          ms(percentile(s, 99)),
          ms(s[s.length - 1]),
          ms(mean(s)),
        ];
      }),
    ),
  );
}

const choices = databases();
console.log('Drover list benchmark: GET /api/v2/users/');
console.log(
  `  ${USERS.toLocaleString('en')} users, ${ORGS} organizations (one membership each); ` +
    `${WARMUP} warm-up + ${REQUESTS} measured requests per scenario, sequential`,
);
console.log(
  `  transport: ${TRANSPORT === 'http' ? 'real HTTP to 127.0.0.1 (Node fetch/undici, keep-alive)' : 'Fastify inject (no sockets)'}; ` +
    `Basic auth as the superuser "${ADMIN.username}" unless noted; org member = non-superuser in one organization`,
);
console.log(`  Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), databases: ${choices.join(', ')}`);

const reports: RunReport[] = [];
for (const choice of choices) reports.push(await runOn(choice));
for (const report of reports) printReport(report);

if (reports.length > 1) {
  console.log('\n### p99 side by side (ms)');
  console.log(
    table(
      ['scenario', ...reports.map((r) => (r.db === 'postgres' ? 'PostgreSQL' : 'PGlite'))],
      SCENARIOS.map((s, i) => [s.name, ...reports.map((r) => ms(percentile([...r.figures[i].measured].sort((a, b) => a - b), 99)))]),
    ),
  );
}
const server = reports.find((r) => r.db === 'postgres');
if (server) {
  const worst = Math.max(...server.figures.map((f) => percentile([...f.measured].sort((a, b) => a - b), 99)));
  console.log(`\nGoal: p99 under 100 ms on PostgreSQL. Worst p99 here: ${ms(worst)} ms (${worst < 100 ? 'met' : 'not met'}).`);
}
