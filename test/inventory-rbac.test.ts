// Role matrix of inventories, hosts and groups: every caller against every request shape. Each
// cell (row x caller) is one test with one assertion, named after what it expects.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN, createTestApp, grant, newOrg, type Credentials, type TestApp } from './helpers/app.ts';

const CALLERS = [
  'superuser', 'org admin', 'org inventory admin', 'inventory admin', 'inventory update', 'inventory adhoc', 'inventory use',
  'inventory read', 'org auditor', 'system auditor', 'org member', 'outsider',
] as const;
type Caller = (typeof CALLERS)[number];

/** The role a caller holds, granted on organization A or on the inventory in question. */
const ORG_ROLES: Partial<Record<Caller, string>> = { 'org admin': 'admin_role', 'org inventory admin': 'inventory_admin_role', 'org auditor': 'auditor_role', 'org member': 'member_role' };
const INVENTORY_ROLES: Partial<Record<Caller, string>> = {
  'inventory admin': 'admin_role', 'inventory update': 'update_role', 'inventory adhoc': 'adhoc_role', 'inventory use': 'use_role', 'inventory read': 'read_role',
};

const ORG_LEVEL: Caller[] = ['superuser', 'org admin', 'org inventory admin'];
const ADMINS: Caller[] = [...ORG_LEVEL, 'inventory admin'];
const READERS: Caller[] = [...ADMINS, 'inventory update', 'inventory adhoc', 'inventory use', 'inventory read', 'org auditor', 'system auditor'];

/** `yes` for the callers listed, `no` for the others. */
const only = (allowed: readonly Caller[], yes: unknown, no: unknown = 403) =>
  Object.fromEntries(CALLERS.map((c) => [c, allowed.includes(c) ? yes : no])) as Record<Caller, unknown>;

/** The value of the first tier listing the caller, else `rest`. */
const tiered = (tiers: [readonly Caller[], unknown][], rest: unknown) =>
  Object.fromEntries(CALLERS.map((c) => [c, tiers.find(([callers]) => callers.includes(c))?.[1] ?? rest])) as Record<Caller, unknown>;

describe('inventory role matrix', () => {
  let t: TestApp;
  let orgId: number;
  let inv: number;
  let smart: number;
  let host: number;
  let group: number;
  let serial = 0;
  const users = {} as Record<Caller, Credentials & { id: number }>;
  const unique = (prefix: string) => `${prefix}-${++serial}`;

  /** A new inventory of organization A on which every inventory-level caller holds his role. */
  const freshInventory = async (extra: Record<string, unknown> = {}) => {
    const inventory = (await t.post('/api/v2/inventories/', { name: unique('inv'), organization: orgId, ...extra })).body;
    for (const [caller, roleField] of Object.entries(INVENTORY_ROLES)) await grant(t, users[caller as Caller], inventory, roleField);
    return inventory.id as number;
  };
  const fresh = async (url: string, body: Record<string, unknown>) => {
    const res = await t.post(url, body);
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };

  before(async () => {
    t = await createTestApp();
    const org = await newOrg(t, { name: 'A' });
    orgId = org.id;
    for (const caller of CALLERS) {
      if (caller === 'superuser') users[caller] = { ...ADMIN, id: (await t.get('/api/v2/users/admin/')).body.id };
      else users[caller] = await t.createUser(caller.replace(/ /g, '-'), caller === 'system auditor' ? { is_system_auditor: true } : {});
      const orgRole = ORG_ROLES[caller];
      if (orgRole) await grant(t, users[caller], org, orgRole);
    }
    inv = await freshInventory({ variables: 'a: 1' });
    smart = await freshInventory({ kind: 'smart', host_filter: 'name=h1' });
    host = await fresh('/api/v2/hosts/', { name: 'h1', inventory: inv });
    group = await fresh('/api/v2/groups/', { name: 'g1', inventory: inv });
  });
  after(() => t.close());

  const rows: { name: string; expected: Record<Caller, unknown>; run: (as: Credentials) => Promise<unknown> }[] = [
    { name: 'GET /inventories/ lists the inventory', expected: only(READERS, true, false),
      run: async (as) => (await t.get(`/api/v2/inventories/?id=${inv}`, { as })).body.count === 1 },
    { name: 'GET /inventories/{id}/', expected: only(READERS, 200), run: async (as) => (await t.get(`/api/v2/inventories/${inv}/`, { as })).status },
    { name: 'user_capabilities.edit of the inventory', expected: tiered([[ADMINS, true], [READERS, false]], null),
      run: async (as) => (await t.get(`/api/v2/inventories/${inv}/`, { as })).body.summary_fields?.user_capabilities.edit ?? null },
    { name: 'GET /inventories/{id}/script/', expected: only(READERS, 200), run: async (as) => (await t.get(`/api/v2/inventories/${inv}/script/`, { as })).status },
    { name: 'GET /inventories/{id}/variable_data/', expected: only(READERS, 200), run: async (as) => (await t.get(`/api/v2/inventories/${inv}/variable_data/`, { as })).status },
    { name: 'POST /inventories/ in the organization', expected: only(ORG_LEVEL, 201),
      run: async (as) => (await t.post('/api/v2/inventories/', { name: unique('new'), organization: orgId }, { as })).status },
    { name: 'PATCH /inventories/{id}/', expected: only(ADMINS, 200),
      run: async (as) => (await t.patch(`/api/v2/inventories/${inv}/`, { description: unique('d') }, { as })).status },
    { name: 'PUT /inventories/{id}/variable_data/', expected: only(ADMINS, 200),
      run: async (as) => (await t.put(`/api/v2/inventories/${inv}/variable_data/`, { a: 2 }, { as })).status },
    { name: 'PATCH host_filter of a smart inventory (organization level only)', expected: only(ORG_LEVEL, 200),
      run: async (as) => (await t.patch(`/api/v2/inventories/${smart}/`, { host_filter: `name=${unique('h')}` }, { as })).status },
    { name: 'DELETE /inventories/{id}/', expected: only(ADMINS, 204),
      run: async (as) => (await t.delete(`/api/v2/inventories/${await freshInventory()}/`, { as })).status },
    { name: 'GET /hosts/ lists the host', expected: only(READERS, true, false),
      run: async (as) => (await t.get(`/api/v2/hosts/?id=${host}`, { as })).body.count === 1 },
    { name: 'GET /inventories/{smart}/hosts/ lists the host', expected: only(READERS, true, 403),
      run: async (as) => {
        await t.patch(`/api/v2/inventories/${smart}/`, { host_filter: 'name=h1' });
        const res = await t.get(`/api/v2/inventories/${smart}/hosts/`, { as });
        return res.status === 200 ? res.body.count === 1 : res.status;
      } },
    { name: 'GET /hosts/{id}/', expected: only(READERS, 200), run: async (as) => (await t.get(`/api/v2/hosts/${host}/`, { as })).status },
    { name: 'GET /hosts/{id}/ansible_facts/', expected: only(READERS, 200), run: async (as) => (await t.get(`/api/v2/hosts/${host}/ansible_facts/`, { as })).status },
    { name: 'POST /hosts/', expected: only(ADMINS, 201), run: async (as) => (await t.post('/api/v2/hosts/', { name: unique('h'), inventory: inv }, { as })).status },
    { name: 'POST /inventories/{id}/hosts/', expected: only(ADMINS, 201),
      run: async (as) => (await t.post(`/api/v2/inventories/${inv}/hosts/`, { name: unique('h') }, { as })).status },
    { name: 'PATCH /hosts/{id}/', expected: only(ADMINS, 200), run: async (as) => (await t.patch(`/api/v2/hosts/${host}/`, { description: unique('d') }, { as })).status },
    { name: 'DELETE /hosts/{id}/', expected: only(ADMINS, 204),
      run: async (as) => (await t.delete(`/api/v2/hosts/${await fresh('/api/v2/hosts/', { name: unique('h'), inventory: inv })}/`, { as })).status },
    { name: 'GET /groups/{id}/', expected: only(READERS, 200), run: async (as) => (await t.get(`/api/v2/groups/${group}/`, { as })).status },
    { name: 'POST /groups/', expected: only(ADMINS, 201), run: async (as) => (await t.post('/api/v2/groups/', { name: unique('g'), inventory: inv }, { as })).status },
    { name: 'PATCH /groups/{id}/', expected: only(ADMINS, 200), run: async (as) => (await t.patch(`/api/v2/groups/${group}/`, { description: unique('d') }, { as })).status },
    { name: 'POST /groups/{id}/hosts/ {id}', expected: only(ADMINS, 204),
      run: async (as) => (await t.post(`/api/v2/groups/${group}/hosts/`, { id: await fresh('/api/v2/hosts/', { name: unique('h'), inventory: inv }) }, { as })).status },
    { name: 'POST /groups/{id}/children/ creating a group', expected: only(ADMINS, 201),
      run: async (as) => (await t.post(`/api/v2/groups/${group}/children/`, { name: unique('g') }, { as })).status },
    { name: 'POST /hosts/{id}/groups/ {id, disassociate}', expected: only(ADMINS, 204),
      run: async (as) => (await t.post(`/api/v2/hosts/${host}/groups/`, { id: group, disassociate: true }, { as })).status },
    { name: 'DELETE /groups/{id}/', expected: only(ADMINS, 204),
      run: async (as) => (await t.delete(`/api/v2/groups/${await fresh('/api/v2/groups/', { name: unique('g'), inventory: inv })}/`, { as })).status },
  ];

  for (const row of rows) {
    describe(row.name, () => {
      for (const caller of CALLERS) {
        it(`${caller}: ${JSON.stringify(row.expected[caller])}`, async () => {
          assert.deepEqual(await row.run(users[caller]), row.expected[caller]);
        });
      }
    });
  }

  it('anonymous callers get 401', async () => {
    assert.equal((await t.get(`/api/v2/inventories/${inv}/`, { as: null })).status, 401);
    assert.equal((await t.get(`/api/v2/hosts/${host}/`, { as: null })).status, 401);
  });
});
