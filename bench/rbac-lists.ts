// Latency of role-filtered lists (teams, organizations, roles) over 20,000 teams in 200
// organizations, for a user with roles in 5 of them and for a superuser, side by side.
//
//   npm run bench:rbac                                        PGlite, or PostgreSQL when POSTGRES_HOST is set
//   BENCH_DB=both POSTGRES_HOST=127.0.0.1 npm run bench:rbac  both, one after the other
//
// Other knobs (environment): BENCH_TEAMS (20000), BENCH_ORGS (200), BENCH_REQUESTS (300 measured
// requests per scenario and caller), BENCH_WARMUP (30), BENCH_TRANSPORT (http | inject),
// BENCH_EXPLAIN=1 (print the plan of every query of one request per scenario and caller).
// It only prints figures.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Resource } from '../src/api/resource.ts';
import type { Queryable } from '../src/db/database.ts';
import { recomputeClosure } from '../src/rbac/graph.ts';
import { ADMIN, basicAuth, createTestApp, type Credentials, type TestApp } from '../test/helpers/app.ts';
import { explain } from './lib/explain.ts';
import { ms, percentile, table } from './lib/stats.ts';
import { databases, intEnv, type DbChoice } from './lib/options.ts';


const TEAMS = intEnv('BENCH_TEAMS', 20_000);
const ORGS = intEnv('BENCH_ORGS', 200);
const REQUESTS = intEnv('BENCH_REQUESTS', 300);
const WARMUP = intEnv('BENCH_WARMUP', 30);
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const TRANSPORT = process.env.BENCH_TRANSPORT === 'inject' ? 'inject' : 'http';


const FILTERED_TEAMS = '/api/v2/teams/?name__icontains=7&order_by=name';
const SCENARIOS = [
  { name: 'teams ?name__icontains=7&order_by=name', url: FILTERED_TEAMS },
  { name: 'organizations', url: '/api/v2/organizations/' },
  { name: 'roles ?content_type=team', url: '/api/v2/roles/?content_type=team' },
  { name: 'teams ?organization__name__icontains=1', url: '/api/v2/teams/?organization__name__icontains=1' },
];

/** Who asks: the user with roles in five organizations (with ORG_ADMINS_CAN_SEE_ALL_USERS off and on), and the superuser. */
const CALLERS = [
  { key: 'user', label: 'user', orgAdminsSeeAll: false },
  { key: 'user', label: 'user, ORG_ADMINS_CAN_SEE_ALL_USERS', orgAdminsSeeAll: true },
  { key: 'admin', label: 'superuser', orgAdminsSeeAll: false },
] as const;

interface Figures {
  scenario: string;
  caller: string;
  count: number;
  warmup: number[];
  measured: number[];
}

/**
 * The rows createObjectRoles (src/rbac/object-roles.ts) makes for each object, for many objects at
 * once: one role per declared role, the declared parent links, then the closure of every new role
 * (computed by the same code the API uses to rebuild it).
 */
async function bulkObjectRoles(tx: Queryable, resource: Resource, ids: number[]): Promise<number[]> {
  const fields = Object.keys(resource.roles);
  const created = await tx.query<{ id: number }>(
    `INSERT INTO roles (role_field, content_type, object_id)
     SELECT f.field, $1, o.id FROM unnest($2::integer[]) WITH ORDINALITY AS o(id, n), unnest($3::text[]) WITH ORDINALITY AS f(field, k)
     ORDER BY o.n, f.k RETURNING id`,
    [resource.name, ids, fields],
  );
  // Statistics for the rows just loaded, or the joins below plan as if the tables were empty.
  await tx.exec(`ANALYZE roles; ANALYZE ${resource.table}`);
  for (const [roleField, declaration] of Object.entries(resource.roles)) {
    for (const spec of declaration.parents ?? []) {
      const dot = spec.indexOf('.');
      const parentField = dot < 0 ? spec : spec.slice(dot + 1);
      // The parent role is of the same object, or of the object a reference field points to.
      const reference = dot < 0 ? null : resource.allFields[spec.slice(0, dot)];
      const parentType = reference ? reference.ref! : resource.name;
      const parentObject = reference ? `o.${reference.column}` : 'o.id';
      await tx.query(
        `INSERT INTO role_parents (role_id, parent_id)
         SELECT child.id, parent.id FROM unnest($5::integer[]) AS new(id)
         JOIN ${resource.table} o ON o.id = new.id
         JOIN roles child ON child.content_type = $1 AND child.object_id = o.id AND child.role_field = $2
         JOIN roles parent ON parent.content_type = $3 AND parent.object_id = ${parentObject} AND parent.role_field = $4
         ON CONFLICT DO NOTHING`,
        [resource.name, roleField, parentType, parentField, ids],
      );
    }
  }
  const roleIds = created.map((r) => r.id);
  await recomputeClosure(tx, roleIds);
  return roleIds;
}

/** 20,000 teams across 200 organizations, with their roles, in bulk SQL. */
async function seedObjects(t: TestApp): Promise<{ orgIds: number[] }> {
  const organizations = t.services.resources.get('organization');
  const teams = t.services.resources.get('team');
  let orgIds: number[] = [];
  await t.db.transaction(async (tx) => {
    orgIds = (
      await tx.query<{ id: number }>(
        `INSERT INTO organizations (name, description) SELECT 'Bench Org ' || lpad(n::text, 3, '0'), 'Organization ' || n
         FROM generate_series(1, $1::integer) AS n ORDER BY n RETURNING id`,
        [ORGS],
      )
    ).map((r) => r.id);
    await bulkObjectRoles(tx, organizations, orgIds);
    const teamIds = (
      await tx.query<{ id: number }>(
        `INSERT INTO teams (name, description, organization_id)
         SELECT 'team-' || lpad(n::text, 5, '0'), 'Team ' || n, ($2::integer[])[1 + (n - 1) % array_length($2::integer[], 1)]
         FROM generate_series(1, $1::integer) AS n ORDER BY n RETURNING id`,
        [TEAMS, orgIds],
      )
    ).map((r) => r.id);
    await bulkObjectRoles(tx, teams, teamIds);
  });
  return { orgIds };
}

/** The role rows of one object, described without ids: its roles' parent links and ancestors, relative to the object. */
async function roleShape(db: Queryable, contentType: string, objectId: number): Promise<string[]> {
  const relative = `CASE WHEN other.content_type = mine.content_type AND other.object_id = mine.object_id THEN 'self'
    ELSE other.content_type || (CASE WHEN other.content_type = 'organization' AND other.object_id = (SELECT organization_id FROM teams WHERE id = mine.object_id AND mine.content_type = 'team') THEN '(its organization)' ELSE '(other)' END) END`;
  const rows = await db.query<{ line: string }>(
    `SELECT 'role ' || mine.role_field AS line FROM roles mine WHERE mine.content_type = $1 AND mine.object_id = $2
     UNION ALL
     SELECT 'parent ' || mine.role_field || ' <- ' || ${relative} || '.' || other.role_field FROM role_parents
       JOIN roles mine ON mine.id = role_parents.role_id JOIN roles other ON other.id = role_parents.parent_id
       WHERE mine.content_type = $1 AND mine.object_id = $2
     UNION ALL
     SELECT 'ancestor ' || mine.role_field || ' <- ' || ${relative} || '.' || other.role_field FROM role_ancestors
       JOIN roles mine ON mine.id = role_ancestors.descendent_id JOIN roles other ON other.id = role_ancestors.ancestor_id
       WHERE mine.content_type = $1 AND mine.object_id = $2`,
    [contentType, objectId],
  );
  return rows.map((r) => r.line).sort();
}

/**
 * Checks on a sample that bulk-made objects are what the API makes: the same role rows, and the
 * same answers from the API for the bench user.
 */
async function verify(t: TestApp, user: Credentials, orgIds: number[], adminOrg: number, memberOrg: number): Promise<void> {
  const apiOrg = (await t.post('/api/v2/organizations/', { name: 'Bench Org made by the API' })).body.id;
  const sameOrgShape = JSON.stringify(await roleShape(t.db, 'organization', orgIds[0])) === JSON.stringify(await roleShape(t.db, 'organization', apiOrg));
  await t.delete(`/api/v2/organizations/${apiOrg}/`);
  const problems: string[] = [];
  if (!sameOrgShape) problems.push('organization roles differ');
  for (const org of [adminOrg, memberOrg]) {
    const apiTeam = (await t.post('/api/v2/teams/', { name: 'team-made-by-the-api', organization: org })).body.id;
    const [bulk] = await t.db.query<{ id: number }>('SELECT id FROM teams WHERE organization_id = $1 AND id <> $2 ORDER BY id LIMIT 1', [org, apiTeam]);
    if (JSON.stringify(await roleShape(t.db, 'team', bulk.id)) !== JSON.stringify(await roleShape(t.db, 'team', apiTeam))) problems.push(`team roles differ in org ${org}`);
    const seen = async (id: number) => {
      const res = await t.get(`/api/v2/teams/${id}/`, { as: user });
      return JSON.stringify([res.status, res.body.summary_fields?.user_capabilities, Object.keys(res.body.summary_fields?.object_roles ?? {}).sort()]);
    };
    if ((await seen(bulk.id)) !== (await seen(apiTeam))) problems.push(`the API answers differently for a bulk team and an API team in org ${org}`);
    await t.delete(`/api/v2/teams/${apiTeam}/`);
  }
  if (problems.length) throw new Error(`bulk seed differs from the API: ${problems.join('; ')}`);
}

/** The bench user: member of 3 organizations, admin of 1, auditor of 1, and in 4 teams elsewhere. Given roles through the API. */
async function seedUser(t: TestApp, orgIds: number[]): Promise<{ user: Credentials; adminOrg: number; memberOrg: number }> {
  const user = await t.createUser('bench-rbac-user');
  const roleOf = async (type: string, id: number, field: string) =>
    (await t.db.query('SELECT id FROM roles WHERE content_type = $1 AND object_id = $2 AND role_field = $3', [type, id, field]))[0].id;
  const post = async (url: string, body: unknown) => {
    const res = await t.post(url, body);
    if (res.status !== 204) throw new Error(`POST ${url}: ${res.status} ${res.text}`);
  };
  const pick = (k: number) => orgIds[Math.floor((k * orgIds.length) / 5)];
  const [m1, m2, m3, adminOrg, auditorOrg] = [pick(0), pick(1), pick(2), pick(3), pick(4)];
  for (const org of [m1, m2, m3]) await post(`/api/v2/organizations/${org}/users/`, { id: user.id });
  await post(`/api/v2/organizations/${adminOrg}/admins/`, { id: user.id });
  await post(`/api/v2/roles/${await roleOf('organization', auditorOrg, 'auditor_role')}/users/`, { id: user.id });
  // A few teams of organizations he has no role in.
  const elsewhere = orgIds.filter((o) => ![m1, m2, m3, adminOrg, auditorOrg].includes(o)).slice(0, 4);
  for (const org of elsewhere) {
    const [team] = await t.db.query('SELECT id FROM teams WHERE organization_id = $1 ORDER BY id LIMIT 1', [org]);
    await post(`/api/v2/teams/${team.id}/users/`, { id: user.id });
  }
  return { user, adminOrg, memberOrg: m1 };
}

async function httpClient(t: TestApp) {
  if (TRANSPORT === 'inject') {
    return async (url: string, auth: string) => {
      const res = await t.app.inject({ method: 'GET', url, headers: { authorization: auth } });
      return { status: res.statusCode, text: res.body };
    };
  }
  const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
  return async (url: string, auth: string) => {
    const res = await fetch(address + url, { headers: { authorization: auth } });
    return { status: res.status, text: await res.text() };
  };
}

interface RunReport {
  db: DbChoice;
  version: string;
  seedSeconds: number;
  roles: number;
  closure: number;
  figures: Figures[];
}

async function runOn(choice: DbChoice): Promise<RunReport> {
  const pgHost = process.env.POSTGRES_HOST;
  if (choice === 'postgres') process.env.POSTGRES_HOST = pgHost || '127.0.0.1';
  else delete process.env.POSTGRES_HOST;
  const label = choice === 'postgres' ? `PostgreSQL (${process.env.POSTGRES_HOST}:${process.env.POSTGRES_PORT ?? 5432})` : 'PGlite (embedded)';
  console.log(`\n== ${label}: fresh database, seeding ${TEAMS.toLocaleString('en')} teams in ${ORGS} organizations...`);
  const t = await createTestApp();
  if (pgHost === undefined) delete process.env.POSTGRES_HOST;
  else process.env.POSTGRES_HOST = pgHost;
  try {
    const started = performance.now();
    const { orgIds } = await seedObjects(t);
    const { user, adminOrg, memberOrg } = await seedUser(t, orgIds);
    await t.db.exec('VACUUM ANALYZE');
    const seedSeconds = (performance.now() - started) / 1000;
    await verify(t, user, orgIds, adminOrg, memberOrg);
    const [{ server_version: version }] = await t.db.query<{ server_version: string }>('SHOW server_version');
    const [{ roles }] = await t.db.query<{ roles: number }>('SELECT count(*)::int AS roles FROM roles');
    const [{ closure }] = await t.db.query<{ closure: number }>('SELECT count(*)::int AS closure FROM role_ancestors');
    console.log(`   seeded in ${seedSeconds.toFixed(1)} s: ${roles.toLocaleString('en')} roles, ${closure.toLocaleString('en')} closure rows; bulk rows checked against the API`);
    const get = await httpClient(t);
    const auth = { user: basicAuth(user), admin: basicAuth(ADMIN) };
    const figures: Figures[] = [];
    for (const caller of CALLERS) {
      const res = await t.patch('/api/v2/settings/system/', { ORG_ADMINS_CAN_SEE_ALL_USERS: caller.orgAdminsSeeAll });
      if (res.status !== 200) throw new Error(`setting ORG_ADMINS_CAN_SEE_ALL_USERS: ${res.status} ${res.text}`);
      for (const scenario of SCENARIOS) {
        const timed = async () => {
          const start = performance.now();
          const r = await get(scenario.url, auth[caller.key]);
          const ms = performance.now() - start;
          if (r.status !== 200) throw new Error(`${scenario.name} as ${caller.label}: ${r.status} ${r.text.slice(0, 300)}`);
          return { ms, text: r.text };
        };
        const warmup: number[] = [];
        let count = -1;
        for (let i = 0; i < WARMUP; i++) {
          const r = await timed();
          warmup.push(r.ms);
          if (count < 0) count = JSON.parse(r.text).count;
        }
        const measured: number[] = [];
        for (let i = 0; i < REQUESTS; i++) measured.push((await timed()).ms);
        figures.push({ scenario: scenario.name, caller: caller.label, count, warmup, measured });
        if (EXPLAIN) await explain(t, () => get(scenario.url, auth[caller.key]), `${scenario.name}, ${caller.label}`);
      }
      console.log(`   ${caller.label}: done`);
    }
    return { db: choice, version, seedSeconds, roles, closure, figures };
  } finally {
    await t.close();
  }
}



function printReport(report: RunReport): number {
  const name = report.db === 'postgres' ? `PostgreSQL ${report.version}` : `PGlite (PostgreSQL ${report.version}, embedded)`;
  console.log(`\n### ${name}`);
  console.log(`\n${REQUESTS} measured requests per scenario and caller, one at a time, after ${WARMUP} warm-up requests (ms)`);
  const headers = ['scenario'];
  for (const caller of CALLERS) headers.push(`${caller.label}: count`, 'p50', 'p95', 'p99');
  const rows = SCENARIOS.map((scenario) => {
    const row = [scenario.name];
    for (const caller of CALLERS) {
      const f = report.figures.find((x) => x.scenario === scenario.name && x.caller === caller.label)!;
      const s = [...f.measured].sort((a, b) => a - b);
      row.push(String(f.count), ms(percentile(s, 50)), ms(percentile(s, 95)), ms(percentile(s, 99)));
    }
    return row;
  });
  console.log(table(headers, rows));
  return Math.max(...report.figures.map((f) => percentile([...f.measured].sort((a, b) => a - b), 99)));
}

const choices = databases();
console.log('Drover RBAC list benchmark');
console.log(
  `  ${TEAMS.toLocaleString('en')} teams in ${ORGS} organizations (roles and closure rows made in bulk SQL, as the API makes them); ` +
    `user "bench-rbac-user": member of 3 organizations, admin of 1, auditor of 1, in 4 teams of others`,
);
console.log(
  `  callers: the user with ORG_ADMINS_CAN_SEE_ALL_USERS off (lists filtered by his roles), the same user with it on ` +
    `(the default: as an organization admin he sees every team), the superuser "${ADMIN.username}"`,
);
console.log(
  `  transport: ${TRANSPORT === 'http' ? 'real HTTP to 127.0.0.1 (keep-alive)' : 'Fastify inject'}; Node ${process.version}, ` +
    `${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), databases: ${choices.join(', ')}`,
);

const reports: RunReport[] = [];
for (const choice of choices) reports.push(await runOn(choice));
for (const report of reports) {
  const worst = printReport(report);
  if (report.db === 'postgres') console.log(`\nGoal: p99 under 100 ms on PostgreSQL. Worst p99 here: ${ms(worst)} ms (${worst < 100 ? 'met' : 'not met'}).`);
}
