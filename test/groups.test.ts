import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

describe('groups', () => {
  let t: TestApp;
  let orgId: number;
  let inv: any;
  let other: any;

  before(async () => {
    t = await createTestApp();
    orgId = (await newOrg(t, { name: 'Ops' })).id;
    inv = (await t.post('/api/v2/inventories/', { name: 'Prod', organization: orgId })).body;
    other = (await t.post('/api/v2/inventories/', { name: 'Dev', organization: orgId })).body;
  });
  after(() => t.close());

  const group = async (name: string, inventory = inv.id) => {
    const res = await t.post('/api/v2/groups/', { name, inventory });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const host = async (name: string, inventory = inv.id) => {
    const res = await t.post('/api/v2/hosts/', { name, inventory });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const attach = (url: string, id: number) => t.post(url, { id });
  const children = async (id: number) => (await t.db.query<AnyRow>('SELECT child_id FROM group_children WHERE parent_id = $1 ORDER BY child_id', [id])).map((r) => r.child_id);
  const hostsOf = async (id: number) => (await t.db.query<AnyRow>('SELECT host_id FROM group_hosts WHERE group_id = $1 ORDER BY host_id', [id])).map((r) => r.host_id);
  const totalGroups = async () => (await t.db.query<AnyRow>('SELECT total_groups FROM inventories WHERE id = $1', [inv.id]))[0].total_groups;

  describe('CRUD', () => {
    it('POST creates a group with its links and the inventory summary', async () => {
      const res = await t.post(`/api/v2/inventories/${inv.id}/groups/`, { name: 'web', description: 'Web tier', variables: '{"tier": "web"}' });
      assert.equal(res.status, 201, res.text);
      const g = res.body;
      assert.deepEqual([g.type, g.name, g.description, g.inventory, g.variables], ['group', 'web', 'Web tier', inv.id, '{"tier": "web"}']);
      assert.equal(g.summary_fields.inventory.total_groups, 1);
      const base = `/api/v2/groups/${g.id}/`;
      for (const [name, url] of Object.entries({
        hosts: `${base}hosts/`, children: `${base}children/`, parents: `${base}parents/`, all_hosts: `${base}all_hosts/`,
        potential_children: `${base}potential_children/`, variable_data: `${base}variable_data/`, inventory: `/api/v2/inventories/${inv.id}/`,
        named_url: '/api/v2/groups/web++Prod++Ops/',
      })) assert.equal(g.related[name], url, name);
      assert.deepEqual((await t.get(`/api/v2/groups/${g.id}/variable_data/`)).body, { tier: 'web' });
    });

    it('refuses reserved names, duplicate names, host names and bad variables', async () => {
      for (const name of ['all', '_meta']) {
        const res = await t.post('/api/v2/groups/', { name, inventory: inv.id });
        assert.deepEqual([res.status, res.body], [400, { name: ['Invalid group name.'] }]);
      }
      const dup = await t.post('/api/v2/groups/', { name: 'web', inventory: inv.id });
      assert.deepEqual([dup.status, dup.body], [400, { __all__: ['Group with this Name and Inventory already exists.'] }]);
      await host('box1');
      const clash = await t.post('/api/v2/groups/', { name: 'box1', inventory: inv.id });
      assert.deepEqual([clash.status, clash.body], [400, { __all__: ['A Host with that name already exists.'] }]);
      const vars = await t.post('/api/v2/groups/', { name: 'v', inventory: inv.id, variables: 'just a string' });
      assert.deepEqual([vars.status, vars.body], [400, { variables: ['Must be valid JSON or YAML.'] }]);
      assert.equal(await totalGroups(), 1);
    });

    it('the inventory of a group never changes', async () => {
      const g = await group('fixed');
      const res = await t.patch(`/api/v2/groups/${g.id}/`, { inventory: other.id });
      assert.deepEqual([res.status, res.body], [403, { detail: 'Unable to change inventory on a group.' }]);
      assert.equal((await t.patch(`/api/v2/groups/${g.id}/`, { name: 'fixed2', inventory: inv.id })).status, 200);
    });
  });

  describe('nesting', () => {
    let a: any;
    let b: any;
    let c: any;

    before(async () => {
      [a, b, c] = [await group('a'), await group('b'), await group('c')];
    });

    it('children attach with {id} (204) and detach', async () => {
      assert.equal((await attach(`/api/v2/groups/${a.id}/children/`, b.id)).status, 204);
      assert.equal((await attach(`/api/v2/groups/${b.id}/children/`, c.id)).status, 204);
      assert.deepEqual(await children(a.id), [b.id]);
      assert.deepEqual((await t.get(`/api/v2/groups/${c.id}/parents/`)).body.results.map((g: any) => g.name), ['b']);
      const extra = await group('extra');
      await attach(`/api/v2/groups/${a.id}/children/`, extra.id);
      assert.equal((await t.post(`/api/v2/groups/${a.id}/children/`, { id: extra.id, disassociate: true })).status, 204);
      assert.deepEqual(await children(a.id), [b.id]);
    });

    for (const [name, parent, child] of [['itself', 'a', 'a'], ['its parent', 'b', 'a'], ['its grandparent', 'c', 'a']] as const) {
      it(`refuses a cycle: a group as a child of ${name}`, async () => {
        const ids = { a: a.id, b: b.id, c: c.id };
        const before = await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM group_children');
        const res = await attach(`/api/v2/groups/${ids[parent]}/children/`, ids[child]);
        assert.deepEqual([res.status, res.body], [400, { error: 'Cyclical Group association.' }]);
        assert.deepEqual(await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM group_children'), before);
      });
    }

    it('refuses a child of another inventory', async () => {
      const foreign = await group('foreign', other.id);
      const res = await attach(`/api/v2/groups/${a.id}/children/`, foreign.id);
      assert.deepEqual([res.status, res.body], [400, { detail: 'Cannot associate two items from different inventories.' }]);
      assert.deepEqual(await children(a.id), [b.id]);
    });

    it('POST without id creates a child in the same inventory and links it (201)', async () => {
      const res = await t.post(`/api/v2/groups/${c.id}/children/`, { name: 'd' });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.inventory, inv.id);
      assert.deepEqual(await children(c.id), [res.body.id]);
      const bad = await t.post(`/api/v2/groups/${c.id}/children/`, { name: 'e', inventory: other.id });
      assert.deepEqual([bad.status, bad.body], [400, { detail: 'Cannot associate two items from different inventories.' }]);
      assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM groups WHERE name = 'e'`)).length, 0);
    });

    it('root_groups, potential_children and all_hosts follow the nesting', async () => {
      const roots = (await t.get(`/api/v2/inventories/${inv.id}/root_groups/`)).body.results.map((g: any) => g.name);
      assert.ok(roots.includes('a') && !roots.includes('b') && !roots.includes('c'), roots.join());
      const potential = (await t.get(`/api/v2/groups/${b.id}/potential_children/?page_size=100`)).body.results.map((g: any) => g.name);
      assert.ok(!['a', 'b', 'c', 'd', 'foreign'].some((n) => potential.includes(n)) && potential.includes('web'), potential.join());
      const h = await host('deep-host');
      await attach(`/api/v2/groups/${c.id}/hosts/`, h.id);
      assert.deepEqual((await t.get(`/api/v2/groups/${a.id}/all_hosts/`)).body.results.map((x: any) => x.name), ['deep-host']);
      assert.equal((await t.get(`/api/v2/groups/${a.id}/hosts/`)).body.count, 0);
    });

    it('the tree nests the groups under their roots', async () => {
      const res = await t.get(`/api/v2/inventories/${inv.id}/tree/`);
      assert.equal(res.status, 200);
      const a1 = res.body.find((g: any) => g.name === 'a');
      assert.deepEqual(a1.children.map((g: any) => g.name), ['b']);
      assert.deepEqual(a1.children[0].children[0].children.map((g: any) => g.name), ['d']);
      assert.equal(a1.type, 'group');
    });
  });

  describe('hosts of a group', () => {
    let g: any;

    before(async () => {
      g = await group('members');
    });

    it('POST {id} attaches an existing host; a host of another inventory is refused', async () => {
      const h = await host('m1');
      assert.equal((await attach(`/api/v2/groups/${g.id}/hosts/`, h.id)).status, 204);
      assert.deepEqual(await hostsOf(g.id), [h.id]);
      const foreign = await host('m1', other.id);
      const res = await attach(`/api/v2/groups/${g.id}/hosts/`, foreign.id);
      assert.deepEqual([res.status, res.body], [400, { detail: 'Cannot associate two items from different inventories.' }]);
    });

    it('POST without id creates the host in the group inventory and links it', async () => {
      const res = await t.post(`/api/v2/groups/${g.id}/hosts/`, { name: 'm2', inventory: other.id, variables: 'x: 1' });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.inventory, inv.id);
      assert.ok((await hostsOf(g.id)).includes(res.body.id));
      assert.deepEqual(res.body.summary_fields.groups, { count: 1, results: [{ id: g.id, name: 'members' }] });
    });

    it('POST naming an existing host without variables links it (204); with variables it is a duplicate (400)', async () => {
      const existing = await host('m3');
      const res = await t.post(`/api/v2/groups/${g.id}/hosts/`, { name: 'm3' });
      assert.equal(res.status, 204);
      assert.ok((await hostsOf(g.id)).includes(existing.id));
      const dup = await t.post(`/api/v2/groups/${g.id}/hosts/`, { name: 'm3', variables: 'a: 1' });
      assert.deepEqual([dup.status, dup.body], [400, { __all__: ['Host with this Name and Inventory already exists.'] }]);
    });
  });

  describe('deleting a group moves its members to its parents', () => {
    it('hosts and children go to every parent, once', async () => {
      const [p1, p2, mid, child] = [await group('p1'), await group('p2'), await group('mid'), await group('child')];
      const [h1, h2] = [await host('dh1'), await host('dh2')];
      await attach(`/api/v2/groups/${p1.id}/children/`, mid.id);
      await attach(`/api/v2/groups/${p2.id}/children/`, mid.id);
      await attach(`/api/v2/groups/${mid.id}/children/`, child.id);
      await attach(`/api/v2/groups/${mid.id}/hosts/`, h1.id);
      await attach(`/api/v2/groups/${mid.id}/hosts/`, h2.id);
      await attach(`/api/v2/groups/${p1.id}/hosts/`, h2.id);
      const before = await totalGroups();
      assert.equal((await t.delete(`/api/v2/groups/${mid.id}/`)).status, 204);
      assert.deepEqual(await children(p1.id), [child.id]);
      assert.deepEqual(await children(p2.id), [child.id]);
      assert.deepEqual(await hostsOf(p1.id), [h1.id, h2.id]);
      assert.deepEqual(await hostsOf(p2.id), [h1.id, h2.id]);
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM groups WHERE id = $1', [mid.id])).length, 0);
      assert.equal(await totalGroups(), before - 1);
    });

    it('a root group lets its members go: children become roots, hosts stay in the inventory', async () => {
      const [root, child] = [await group('root'), await group('rchild')];
      const h = await host('rh');
      await attach(`/api/v2/groups/${root.id}/children/`, child.id);
      await attach(`/api/v2/groups/${root.id}/hosts/`, h.id);
      assert.equal((await t.delete(`/api/v2/groups/${root.id}/`)).status, 204);
      const roots = (await t.get(`/api/v2/inventories/${inv.id}/root_groups/?page_size=100`)).body.results.map((x: any) => x.name);
      assert.ok(roots.includes('rchild'));
      assert.equal((await t.get(`/api/v2/hosts/${h.id}/`)).status, 200);
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM group_hosts WHERE host_id = $1', [h.id])).length, 0);
    });
  });
});
