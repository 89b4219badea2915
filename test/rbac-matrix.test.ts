// The role matrix: every caller against list, detail, create, update, delete and attach of
// organizations, teams, users and roles. Each row of a table is one request shape; each cell (row x
// caller) is one test with one assertion, named after what it expects.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, grantTeam, newOrg, newTeam, newUser, type RequestOptions, type TestApp, type User } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const CALLERS = [
  'anonymous',
  'outsider',
  'org member',
  'org auditor',
  'org admin',
  'team member',
  'system auditor',
  'superuser',
  'write token',
  'read token',
] as const;
type Caller = (typeof CALLERS)[number];
type Expectation = Record<Caller, unknown>;

interface Cell {
  /** What is asked, e.g. "PATCH /organizations/A/". */
  name: string;
  /** Sends the request as the caller and answers what is compared: a status, or a summary of the body. */
  run(caller: Caller): Promise<unknown>;
  expected: Expectation;
}

/** Anonymous 401; the callers listed get `yes`, everyone else `no`. */
function only(allowed: readonly Caller[], yes: unknown, no: unknown = 403): Expectation {
  return Object.fromEntries(CALLERS.map((c) => [c, c === 'anonymous' ? 401 : allowed.includes(c) ? yes : no])) as Expectation;
}

/** One value per caller; anonymous is always 401. */
function each(values: Omit<Expectation, 'anonymous'>): Expectation {
  return { anonymous: 401, ...values };
}

const show = (v: unknown) => (typeof v === 'number' ? String(v) : JSON.stringify(v));

/** Callers who administer organization A (the token callers act as its admin). */
const ORG_ADMINS: Caller[] = ['org admin', 'superuser', 'write token'];
/** Callers who hold nothing on A but see it: the token reads as the admin does. */
const READERS_OF_A: Caller[] = ['org member', 'org auditor', 'org admin', 'team member', 'system auditor', 'superuser', 'write token', 'read token'];

describe('role matrix', () => {
  let t: TestApp;
  let serial = 0;
  const unique = (prefix: string) => `${prefix}-${++serial}`;

  // The world every cell starts from.
  let orgA: number;
  let orgB: number;
  let alpha: number; // team of A
  let leads: number; // team of A; granted A's auditor_role and Alpha's admin_role
  let beta: number; // team of B
  const u: Record<string, User> = {};
  const tokens: { write: string; read: string } = { write: '', read: '' };

  const admin = {
    post: async (url: string, body: unknown) => {
      const res = await t.post(url, body);
      if (res.status >= 300) throw new Error(`POST ${url} ${JSON.stringify(body)}: ${res.status} ${res.text}`);
      return res.body;
    },
  };
  const roleOf = async (contentType: string, objectId: number, roleField: string): Promise<number> =>
    (await t.db.query<AnyRow>('SELECT id FROM roles WHERE content_type = $1 AND object_id = $2 AND role_field = $3', [contentType, objectId, roleField]))[0].id;
  const systemRole = async (name: string): Promise<number> => (await t.db.query<AnyRow>('SELECT id FROM roles WHERE singleton_name = $1', [name]))[0].id;
  const freshOrg = async () => (await newOrg(t)).id as number;
  const freshTeam = async (orgId: number) => (await newTeam(t, orgId)).id as number;
  const freshUser = () => newUser(t);

  /** The account a caller acts as (tokens belong to the org admin). */
  const userOf = (caller: Caller): User | null =>
    ({
      anonymous: null,
      outsider: u.outsider,
      'org member': u.member,
      'org auditor': u.auditor,
      'org admin': u.orgadmin,
      'team member': u.teamguy,
      'system auditor': u.sysauditor,
      superuser: u.admin,
      'write token': u.orgadmin,
      'read token': u.orgadmin,
    })[caller];

  const as = (caller: Caller): RequestOptions => {
    if (caller === 'anonymous') return { as: null };
    if (caller === 'write token' || caller === 'read token') {
      return { as: null, headers: { authorization: `Bearer ${caller === 'write token' ? tokens.write : tokens.read}` } };
    }
    return { as: userOf(caller) };
  };

  /**
   * Gives the caller on another organization (and a team of it) what he holds on A (and on Alpha),
   * so cells that delete can each work on an object of their own.
   */
  async function grantLikeA(caller: Caller, orgId: number, teamId?: number): Promise<void> {
    const org = `/api/v2/organizations/${orgId}/`;
    switch (caller) {
      case 'org member':
        await grant(t, u.member, org, 'member_role');
        break;
      case 'org auditor':
        await grant(t, u.auditor, org, 'auditor_role');
        break;
      case 'org admin':
      case 'write token':
      case 'read token':
        await grant(t, u.orgadmin, org, 'admin_role');
        break;
      case 'team member':
        await grantTeam(t, leads, org, 'auditor_role');
        if (teamId) await grantTeam(t, leads, `/api/v2/teams/${teamId}/`, 'admin_role');
        break;
      default:
        break;
    }
  }

  const send = async (caller: Caller, method: string, url: string, body?: unknown) => (await t.request(method, url, { ...as(caller), body })).status;

  /** A list as names and count, or the status when it is not 200. */
  const listOf = (url: string | (() => string), key: string) => async (caller: Caller) => {
    const res = await t.get(typeof url === 'string' ? url : url(), as(caller));
    if (res.status !== 200) return res.status;
    return { count: res.body.count, names: res.body.results.map((r: any) => r[key]).sort() };
  };
  /** summary_fields.user_capabilities of a detail, or the status when it is not 200. */
  const capabilitiesOf = (url: () => string) => async (caller: Caller) => {
    const res = await t.get(url(), as(caller));
    return res.status === 200 ? res.body.summary_fields.user_capabilities : res.status;
  };

  before(async () => {
    t = await createTestApp();
    const a = await newOrg(t, { name: 'Matrix A' });
    orgA = a.id;
    orgB = (await newOrg(t, { name: 'Matrix B' })).id;
    u.admin = { ...(await t.get('/api/v2/users/admin/')).body, username: 'admin', password: 'admin-password' };
    u.outsider = await newUser(t, { username: 'mx-outsider', member: orgB });
    u.member = await newUser(t, { username: 'mx-member', member: orgA });
    u.auditor = await newUser(t, { username: 'mx-auditor', auditor: orgA });
    u.orgadmin = await newUser(t, { username: 'mx-orgadmin', admin: orgA });
    u.teamguy = await newUser(t, { username: 'mx-teamguy' });
    u.bystander = await newUser(t, { username: 'mx-bystander', member: orgA });
    u.dual = await newUser(t, { username: 'mx-dual', member: [orgA, orgB] });
    u.sysauditor = await newUser(t, { username: 'mx-sysauditor', is_system_auditor: true });
    const alphaTeam = await newTeam(t, orgA, { name: 'Alpha' });
    alpha = alphaTeam.id;
    leads = (await newTeam(t, orgA, { name: 'Leads', members: [u.teamguy] })).id;
    beta = (await newTeam(t, orgB, { name: 'Beta' })).id;
    await grantTeam(t, leads, a, 'auditor_role');
    await grantTeam(t, leads, alphaTeam, 'admin_role');
    for (const scope of ['write', 'read'] as const) {
      const res = await t.post('/api/v2/tokens/', { scope, description: `matrix ${scope}` }, { as: u.orgadmin });
      assert.equal(res.status, 201, res.text);
      tokens[scope] = res.body.token;
    }
  });
  after(() => t.close());

  const ALL_USERS = ['admin', 'mx-auditor', 'mx-bystander', 'mx-dual', 'mx-member', 'mx-orgadmin', 'mx-outsider', 'mx-sysauditor', 'mx-teamguy'];
  const list = (names: string[]) => ({ count: names.length, names: [...names].sort() });

  const reads: Cell[] = [
    {
      name: 'GET /organizations/',
      run: listOf('/api/v2/organizations/?page_size=200', 'name'),
      expected: each({
        outsider: list(['Matrix B']),
        'org member': list(['Matrix A']),
        'org auditor': list(['Matrix A']),
        'org admin': list(['Matrix A']),
        'team member': list(['Matrix A']),
        'system auditor': list(['Default', 'Matrix A', 'Matrix B']),
        superuser: list(['Default', 'Matrix A', 'Matrix B']),
        'write token': list(['Matrix A']),
        'read token': list(['Matrix A']),
      }),
    },
    {
      // Organization admins and auditors see every team (ORG_ADMINS_CAN_SEE_ALL_USERS, on by default).
      name: 'GET /teams/',
      run: listOf('/api/v2/teams/?page_size=200', 'name'),
      expected: each({
        outsider: list(['Beta']),
        'org member': list(['Alpha', 'Leads']),
        'org auditor': list(['Alpha', 'Beta', 'Leads']),
        'org admin': list(['Alpha', 'Beta', 'Leads']),
        'team member': list(['Alpha', 'Beta', 'Leads']),
        'system auditor': list(['Alpha', 'Beta', 'Leads']),
        superuser: list(['Alpha', 'Beta', 'Leads']),
        'write token': list(['Alpha', 'Beta', 'Leads']),
        'read token': list(['Alpha', 'Beta', 'Leads']),
      }),
    },
    {
      // Members see themselves and the members of their organizations (admins are members too);
      // organization admins and auditors see everyone.
      name: 'GET /users/',
      run: listOf('/api/v2/users/?page_size=200', 'username'),
      expected: each({
        outsider: list(['mx-dual', 'mx-outsider']),
        'org member': list(['mx-bystander', 'mx-dual', 'mx-member', 'mx-orgadmin']),
        'org auditor': list(ALL_USERS),
        'org admin': list(ALL_USERS),
        'team member': list(ALL_USERS),
        'system auditor': list(ALL_USERS),
        superuser: list(ALL_USERS),
        'write token': list(ALL_USERS),
        'read token': list(ALL_USERS),
      }),
    },
    {
      // The system roles, and the roles of every object the caller sees (13 per organization, 3 per team).
      name: 'GET /roles/ (objects whose roles are listed)',
      run: async (caller) => {
        const res = await t.get('/api/v2/roles/?page_size=200', as(caller));
        if (res.status !== 200) return res.status;
        const objects = new Set<string>(res.body.results.map((r: any) => (r.content_type ? `${r.content_type}:${r.summary_fields.resource_name}` : 'system')));
        return { count: res.body.count, objects: [...objects].sort() };
      },
      expected: (() => {
        const roles = (orgs: string[], teams: string[]) => ({
          count: 2 + 13 * orgs.length + 3 * teams.length,
          objects: ['system', ...orgs.map((o) => `organization:${o}`), ...teams.map((n) => `team:${n}`)].sort(),
        });
        const allTeams = ['Alpha', 'Beta', 'Leads'];
        // Those who see everything also see the roles of the default instance group and of the managed Galaxy credential.
        const all = roles(['Default', 'Matrix A', 'Matrix B'], allTeams);
        const everything = { count: all.count + 3 + 3, objects: ['credential:Ansible Galaxy', 'instance_group:default', ...all.objects].sort() };
        return each({
          outsider: roles(['Matrix B'], ['Beta']),
          'org member': roles(['Matrix A'], ['Alpha', 'Leads']),
          'org auditor': roles(['Matrix A'], allTeams),
          'org admin': roles(['Matrix A'], allTeams),
          'team member': roles(['Matrix A'], allTeams),
          'system auditor': everything,
          superuser: everything,
          'write token': roles(['Matrix A'], allTeams),
          'read token': roles(['Matrix A'], allTeams),
        });
      })(),
    },
    { name: 'GET /organizations/A/', run: (c) => send(c, 'GET', `/api/v2/organizations/${orgA}/`), expected: only(READERS_OF_A, 200) },
    {
      name: 'GET /organizations/B/',
      run: (c) => send(c, 'GET', `/api/v2/organizations/${orgB}/`),
      expected: only(['outsider', 'system auditor', 'superuser'], 200),
    },
    { name: 'GET /teams/Alpha/', run: (c) => send(c, 'GET', `/api/v2/teams/${alpha}/`), expected: only(READERS_OF_A, 200) },
    {
      name: 'GET /teams/Beta/ (a team of B)',
      run: (c) => send(c, 'GET', `/api/v2/teams/${beta}/`),
      expected: only(['outsider', 'org auditor', 'org admin', 'team member', 'system auditor', 'superuser', 'write token', 'read token'], 200),
    },
    {
      name: 'GET /users/<member of A>/',
      run: (c) => send(c, 'GET', `/api/v2/users/${u.bystander.id}/`),
      expected: only(READERS_OF_A, 200),
    },
    {
      name: "GET /roles/<A's admin_role>/",
      run: async (c) => send(c, 'GET', `/api/v2/roles/${await roleOf('organization', orgA, 'admin_role')}/`),
      expected: only(READERS_OF_A, 200),
    },
    {
      name: "GET /roles/<B's admin_role>/",
      run: async (c) => send(c, 'GET', `/api/v2/roles/${await roleOf('organization', orgB, 'admin_role')}/`),
      expected: only(['outsider', 'system auditor', 'superuser'], 200),
    },
    {
      name: 'GET /organizations/A/users/',
      run: listOf(() => `/api/v2/organizations/${orgA}/users/?page_size=200`, 'username'),
      expected: only(READERS_OF_A, list(['mx-bystander', 'mx-dual', 'mx-member'])),
    },
    {
      name: 'user_capabilities of organization A',
      run: capabilitiesOf(() => `/api/v2/organizations/${orgA}/`),
      expected: { ...only(ORG_ADMINS, { edit: true, delete: true }, { edit: false, delete: false }), outsider: 403 },
    },
    {
      name: 'user_capabilities of team Alpha',
      run: capabilitiesOf(() => `/api/v2/teams/${alpha}/`),
      expected: { ...only([...ORG_ADMINS, 'team member'], { edit: true, delete: true }, { edit: false, delete: false }), outsider: 403 },
    },
    {
      name: 'user_capabilities of a member of A',
      run: capabilitiesOf(() => `/api/v2/users/${u.bystander.id}/`),
      expected: { ...only(ORG_ADMINS, { edit: true, delete: true }, { edit: false, delete: false }), outsider: 403 },
    },
    {
      name: 'user_capabilities of oneself',
      run: async (c) => {
        const me = userOf(c);
        return capabilitiesOf(() => `/api/v2/users/${me?.id ?? u.admin.id}/`)(c);
      },
      expected: only(CALLERS.filter((c) => c !== 'read token'), { edit: true, delete: false }, { edit: false, delete: false }),
    },
  ];

  const writes: Cell[] = [
    {
      name: 'POST /organizations/',
      run: (c) => send(c, 'POST', '/api/v2/organizations/', { name: unique('mx-new-org') }),
      expected: only(['superuser'], 201),
    },
    {
      name: 'POST /teams/ in A',
      run: (c) => send(c, 'POST', '/api/v2/teams/', { name: unique('mx-new-team'), organization: orgA }),
      expected: only(ORG_ADMINS, 201),
    },
    {
      name: 'POST /organizations/A/teams/',
      run: (c) => send(c, 'POST', `/api/v2/organizations/${orgA}/teams/`, { name: unique('mx-new-team') }),
      expected: only(ORG_ADMINS, 201),
    },
    {
      name: 'POST /users/',
      run: (c) => send(c, 'POST', '/api/v2/users/', { username: unique('mx-new-user'), password: 'pw-12345' }),
      expected: only(ORG_ADMINS, 201),
    },
    {
      name: 'POST /roles/ (roles are never created through the API)',
      run: (c) => send(c, 'POST', '/api/v2/roles/', { role_field: 'admin_role' }),
      expected: only(CALLERS.filter((c) => c !== 'read token'), 405),
    },
    {
      name: 'PATCH /organizations/A/',
      run: (c) => send(c, 'PATCH', `/api/v2/organizations/${orgA}/`, { description: unique('changed by') }),
      expected: only(ORG_ADMINS, 200),
    },
    {
      name: 'PATCH /teams/Alpha/',
      run: (c) => send(c, 'PATCH', `/api/v2/teams/${alpha}/`, { description: unique('changed by') }),
      expected: only([...ORG_ADMINS, 'team member'], 200),
    },
    {
      name: 'PATCH /users/<member of A>/',
      run: (c) => send(c, 'PATCH', `/api/v2/users/${u.bystander.id}/`, { first_name: unique('By') }),
      expected: only(ORG_ADMINS, 200),
    },
    {
      // Also a member of B, which the org admin does not administer (as AWX).
      name: 'PATCH /users/<member of A and B>/',
      run: (c) => send(c, 'PATCH', `/api/v2/users/${u.dual.id}/`, { first_name: unique('Dual') }),
      expected: only(['superuser'], 200),
    },
    {
      name: 'PATCH /users/<a superuser>/',
      run: (c) => send(c, 'PATCH', `/api/v2/users/${u.admin.id}/`, { first_name: unique('Root') }),
      expected: only(['superuser'], 200),
    },
    {
      name: 'PATCH /users/<oneself>/',
      run: (c) => send(c, 'PATCH', `/api/v2/users/${(userOf(c) ?? u.admin).id}/`, { last_name: unique('Self') }),
      expected: only(CALLERS.filter((c) => c !== 'read token'), 200),
    },
    {
      name: 'DELETE /organizations/<an org where the caller holds what he holds on A>/',
      run: async (c) => {
        const org = await freshOrg();
        await grantLikeA(c, org);
        return send(c, 'DELETE', `/api/v2/organizations/${org}/`);
      },
      expected: only(ORG_ADMINS, 204),
    },
    {
      name: 'DELETE /teams/<a team where the caller holds what he holds on Alpha>/',
      run: async (c) => {
        const org = await freshOrg();
        const team = await freshTeam(org);
        await grantLikeA(c, org, team);
        return send(c, 'DELETE', `/api/v2/teams/${team}/`);
      },
      expected: only([...ORG_ADMINS, 'team member'], 204),
    },
    {
      name: 'DELETE /users/<a member of an org where the caller holds what he holds on A>/',
      run: async (c) => {
        const org = await freshOrg();
        await grantLikeA(c, org);
        const victim = await newUser(t, { member: org });
        return send(c, 'DELETE', `/api/v2/users/${victim.id}/`);
      },
      expected: only(ORG_ADMINS, 204),
    },
    {
      name: 'DELETE /users/<oneself>/',
      run: (c) => send(c, 'DELETE', `/api/v2/users/${(userOf(c) ?? u.admin).id}/`),
      expected: only([], 204),
    },
    {
      name: 'POST /organizations/A/users/ {id}',
      run: async (c) => send(c, 'POST', `/api/v2/organizations/${orgA}/users/`, { id: (await freshUser()).id }),
      expected: only(ORG_ADMINS, 204),
    },
    {
      name: 'POST /organizations/A/users/ {id, disassociate}',
      run: async (c) => {
        const user = await newUser(t, { member: orgA });
        return send(c, 'POST', `/api/v2/organizations/${orgA}/users/`, { id: user.id, disassociate: true });
      },
      expected: only(ORG_ADMINS, 204),
    },
    {
      name: 'POST /organizations/A/admins/ {id}',
      run: async (c) => send(c, 'POST', `/api/v2/organizations/${orgA}/admins/`, { id: (await freshUser()).id }),
      expected: only(ORG_ADMINS, 204),
    },
    {
      name: 'POST /teams/Alpha/users/ {id}',
      run: async (c) => send(c, 'POST', `/api/v2/teams/${alpha}/users/`, { id: (await freshUser()).id }),
      expected: only([...ORG_ADMINS, 'team member'], 204),
    },
    {
      name: "POST /roles/<A's auditor_role>/users/ {id}",
      run: async (c) => send(c, 'POST', `/api/v2/roles/${await roleOf('organization', orgA, 'auditor_role')}/users/`, { id: (await freshUser()).id }),
      expected: only(ORG_ADMINS, 204),
    },
    {
      name: "POST /users/<new user>/roles/ {id: A's auditor_role}",
      run: async (c) => send(c, 'POST', `/api/v2/users/${(await freshUser()).id}/roles/`, { id: await roleOf('organization', orgA, 'auditor_role') }),
      expected: only(ORG_ADMINS, 204),
    },
    {
      name: "POST /roles/<A's execute_role>/teams/ {id: a team of A}",
      run: async (c) => send(c, 'POST', `/api/v2/roles/${await roleOf('organization', orgA, 'execute_role')}/teams/`, { id: await freshTeam(orgA) }),
      expected: only(ORG_ADMINS, 204),
    },
    {
      name: "POST /roles/<A's execute_role>/teams/ {id, disassociate}",
      run: async (c) => {
        const role = await roleOf('organization', orgA, 'execute_role');
        const team = await freshTeam(orgA);
        await admin.post(`/api/v2/roles/${role}/teams/`, { id: team });
        return send(c, 'POST', `/api/v2/roles/${role}/teams/`, { id: team, disassociate: true });
      },
      expected: only(ORG_ADMINS, 204),
    },
    {
      name: "POST /teams/<a team of A>/roles/ {id: A's execute_role}",
      run: async (c) => send(c, 'POST', `/api/v2/teams/${await freshTeam(orgA)}/roles/`, { id: await roleOf('organization', orgA, 'execute_role') }),
      expected: only(ORG_ADMINS, 204),
    },
    {
      name: 'POST /roles/<system_administrator>/users/ {id}',
      run: async (c) => send(c, 'POST', `/api/v2/roles/${await systemRole('system_administrator')}/users/`, { id: (await freshUser()).id }),
      expected: only(['superuser'], 204),
    },
  ];

  for (const cell of [...reads, ...writes]) {
    describe(cell.name, () => {
      for (const caller of CALLERS) {
        const expected = cell.expected[caller];
        it(`${caller} → ${show(expected)}`, async () => {
          assert.deepEqual(await cell.run(caller), expected);
        });
      }
    });
  }

  describe('with ORG_ADMINS_CAN_SEE_ALL_USERS off, organization admins and auditors see only their organizations', () => {
    const cells: Cell[] = [
      {
        name: 'GET /teams/?name__in=Alpha,Beta,Leads',
        run: listOf('/api/v2/teams/?page_size=200&name__in=Alpha,Beta,Leads', 'name'),
        expected: each({
          outsider: list(['Beta']),
          'org member': list(['Alpha', 'Leads']),
          'org auditor': list(['Alpha', 'Leads']),
          'org admin': list(['Alpha', 'Leads']),
          'team member': list(['Alpha', 'Leads']),
          'system auditor': list(['Alpha', 'Beta', 'Leads']),
          superuser: list(['Alpha', 'Beta', 'Leads']),
          'write token': list(['Alpha', 'Leads']),
          'read token': list(['Alpha', 'Leads']),
        }),
      },
      {
        // Who administers or audits A sees the members of A, like its members do.
        name: 'GET /users/?username__in=<the users above>',
        run: listOf(`/api/v2/users/?page_size=200&username__in=${ALL_USERS.filter((n) => n !== 'admin').join(',')}`, 'username'),
        expected: (() => {
          const ofA = list(['mx-bystander', 'mx-dual', 'mx-member', 'mx-orgadmin']);
          const all = list(ALL_USERS.filter((n) => n !== 'admin'));
          return each({
            outsider: list(['mx-dual', 'mx-outsider']),
            'org member': ofA,
            'org auditor': list([...ofA.names, 'mx-auditor']),
            'org admin': ofA,
            'team member': list([...ofA.names, 'mx-teamguy']),
            'system auditor': all,
            superuser: all,
            'write token': ofA,
            'read token': ofA,
          });
        })(),
      },
    ];
    before(async () => {
      assert.equal((await t.patch('/api/v2/settings/system/', { ORG_ADMINS_CAN_SEE_ALL_USERS: false })).status, 200);
    });
    after(async () => {
      await t.patch('/api/v2/settings/system/', { ORG_ADMINS_CAN_SEE_ALL_USERS: true });
    });
    for (const cell of cells) {
      describe(cell.name, () => {
        for (const caller of CALLERS) {
          it(`${caller} → ${show(cell.expected[caller])}`, async () => {
            assert.deepEqual(await cell.run(caller), cell.expected[caller]);
          });
        }
      });
    }
  });

  describe('with MANAGE_ORGANIZATION_AUTH off, only superusers manage users, teams and memberships', () => {
    const cells: Cell[] = [
      {
        name: 'POST /users/',
        run: (c) => send(c, 'POST', '/api/v2/users/', { username: unique('mx-new-user'), password: 'pw-12345' }),
        expected: only(['superuser'], 201),
      },
      {
        name: 'POST /teams/ in A',
        run: (c) => send(c, 'POST', '/api/v2/teams/', { name: unique('mx-new-team'), organization: orgA }),
        expected: only(['superuser'], 201),
      },
      {
        name: 'PATCH /teams/Alpha/',
        run: (c) => send(c, 'PATCH', `/api/v2/teams/${alpha}/`, { description: unique('changed by') }),
        expected: only(['superuser'], 200),
      },
      {
        name: 'PATCH /users/<member of A>/',
        run: (c) => send(c, 'PATCH', `/api/v2/users/${u.bystander.id}/`, { first_name: unique('By') }),
        expected: only(['superuser'], 200),
      },
      {
        name: 'PATCH /users/<oneself>/ (as AWX: not even oneself)',
        run: (c) => send(c, 'PATCH', `/api/v2/users/${(userOf(c) ?? u.admin).id}/`, { last_name: unique('Self') }),
        expected: only(['superuser'], 200),
      },
      {
        name: 'POST /organizations/A/users/ {id}',
        run: async (c) => send(c, 'POST', `/api/v2/organizations/${orgA}/users/`, { id: (await freshUser()).id }),
        expected: only(['superuser'], 204),
      },
      {
        name: 'POST /teams/Alpha/users/ {id}',
        run: async (c) => send(c, 'POST', `/api/v2/teams/${alpha}/users/`, { id: (await freshUser()).id }),
        expected: only(['superuser'], 204),
      },
      {
        // Roles that are not memberships are still the object admin's to grant.
        name: "POST /roles/<A's auditor_role>/users/ {id}",
        run: async (c) => send(c, 'POST', `/api/v2/roles/${await roleOf('organization', orgA, 'auditor_role')}/users/`, { id: (await freshUser()).id }),
        expected: only(ORG_ADMINS, 204),
      },
      {
        name: 'PATCH /organizations/A/',
        run: (c) => send(c, 'PATCH', `/api/v2/organizations/${orgA}/`, { description: unique('changed by') }),
        expected: only(ORG_ADMINS, 200),
      },
    ];
    before(async () => {
      assert.equal((await t.patch('/api/v2/settings/system/', { MANAGE_ORGANIZATION_AUTH: false })).status, 200);
    });
    after(async () => {
      await t.patch('/api/v2/settings/system/', { MANAGE_ORGANIZATION_AUTH: true });
    });
    for (const cell of cells) {
      describe(cell.name, () => {
        for (const caller of CALLERS) {
          it(`${caller} → ${show(cell.expected[caller])}`, async () => {
            assert.deepEqual(await cell.run(caller), cell.expected[caller]);
          });
        }
      });
    }
  });
});
