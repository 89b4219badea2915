import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

describe('inventories', () => {
  let t: TestApp;
  let adminId: number;
  let orgId: number;
  let otherOrgId: number;

  before(async () => {
    t = await createTestApp();
    adminId = (await t.get('/api/v2/users/admin/')).body.id;
    orgId = (await newOrg(t, { name: 'Ops' })).id;
    otherOrgId = (await newOrg(t, { name: 'Lab' })).id;
  });
  after(() => t.close());

  const stored = async (id: number) => (await t.db.query<AnyRow>('SELECT * FROM inventories WHERE id = $1', [id]))[0];
  const create = async (body: Record<string, unknown>) => {
    const res = await t.post('/api/v2/inventories/', { organization: orgId, ...body });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  describe('CRUD', () => {
    let inv: any;

    it('POST creates an inventory with its fields, links, summaries and roles', async () => {
      const res = await t.post('/api/v2/inventories/', { name: 'Prod', description: 'Production', organization: orgId, variables: 'region: eu' });
      assert.equal(res.status, 201, res.text);
      inv = res.body;
      assert.equal(inv.type, 'inventory');
      assert.equal(inv.url, `/api/v2/inventories/${inv.id}/`);
      assert.deepEqual(
        [inv.name, inv.description, inv.organization, inv.kind, inv.host_filter, inv.variables],
        ['Prod', 'Production', orgId, '', null, 'region: eu'],
      );
      for (const field of ['total_hosts', 'hosts_with_active_failures', 'total_groups', 'total_inventory_sources', 'inventory_sources_with_failures']) {
        assert.equal(inv[field], 0, field);
      }
      assert.deepEqual([inv.has_active_failures, inv.has_inventory_sources, inv.pending_deletion, inv.prevent_instance_group_fallback], [false, false, false, false]);
      assert.deepEqual(inv.summary_fields.organization, { id: orgId, name: 'Ops', description: '' });
      assert.deepEqual(inv.summary_fields.created_by, { id: adminId, username: 'admin', first_name: '', last_name: '' });
      assert.deepEqual(Object.keys(inv.summary_fields.object_roles).sort(), ['adhoc_role', 'admin_role', 'read_role', 'update_role', 'use_role']);
      assert.equal(inv.summary_fields.object_roles.adhoc_role.name, 'Ad Hoc');
      const base = `/api/v2/inventories/${inv.id}/`;
      for (const [name, url] of Object.entries({
        organization: `/api/v2/organizations/${orgId}/`,
        created_by: `/api/v2/users/${adminId}/`,
        named_url: '/api/v2/inventories/Prod++Ops/',
        hosts: `${base}hosts/`,
        groups: `${base}groups/`,
        root_groups: `${base}root_groups/`,
        object_roles: `${base}object_roles/`,
        activity_stream: `${base}activity_stream/`,
        variable_data: `${base}variable_data/`,
        script: `${base}script/`,
        tree: `${base}tree/`,
      })) assert.equal(inv.related[name], url, name);
      const row = await stored(inv.id);
      assert.deepEqual([row.name, row.organization_id, row.variables, row.host_filter], ['Prod', orgId, 'region: eu', '']);
    });

    it('GET by id and by named URL answer the same object', async () => {
      assert.deepEqual((await t.get(`/api/v2/inventories/${inv.id}/`)).body, inv);
      assert.deepEqual((await t.get('/api/v2/inventories/Prod++Ops/')).body, inv);
    });

    it('names are unique within an organization', async () => {
      const res = await t.post('/api/v2/inventories/', { name: 'Prod', organization: orgId });
      assert.deepEqual([res.status, res.body], [400, { __all__: ['Inventory with this Name and Organization already exists.'] }]);
      assert.equal((await t.post('/api/v2/inventories/', { name: 'Prod', organization: otherOrgId })).status, 201);
    });

    it('required fields and bad values answer 400 and store nothing', async () => {
      const before = (await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM inventories'))[0].n;
      const missing = await t.post('/api/v2/inventories/', { description: 'x' });
      assert.deepEqual([missing.status, missing.body], [400, { name: ['This field is required.'], organization: ['This field is required.'] }]);
      const badVars = await t.post('/api/v2/inventories/', { name: 'V', organization: orgId, variables: '- a\n- b' });
      assert.deepEqual([badVars.status, badVars.body], [400, { variables: ['Must be valid JSON or YAML.'] }]);
      const scalar = await t.post('/api/v2/inventories/', { name: 'V', organization: orgId, variables: '"just text"' });
      assert.deepEqual([scalar.status, scalar.body], [400, { variables: ['Must be valid JSON or YAML.'] }]);
      const broken = await t.post('/api/v2/inventories/', { name: 'V', organization: orgId, variables: '{"a": ' });
      assert.deepEqual([broken.status, broken.body], [400, { variables: ['Must be valid JSON or YAML.'] }]);
      const unknownKind = await t.post('/api/v2/inventories/', { name: 'V', organization: orgId, kind: 'dynamic' });
      assert.deepEqual([unknownKind.status, unknownKind.body], [400, { kind: ['"dynamic" is not a valid choice.'] }]);
      const filterOnPlain = await t.post('/api/v2/inventories/', { name: 'V', organization: orgId, host_filter: 'name=a' });
      assert.deepEqual([filterOnPlain.status, filterOnPlain.body], [400, { host_filter: ['Only smart inventories may have a host_filter.'] }]);
      const smartWithout = await t.post('/api/v2/inventories/', { name: 'V', organization: orgId, kind: 'smart' });
      assert.deepEqual([smartWithout.status, smartWithout.body], [400, { host_filter: ['Smart inventories must specify host_filter'] }]);
      const badOrg = await t.post('/api/v2/inventories/', { name: 'V', organization: 999999 });
      assert.deepEqual([badOrg.status, badOrg.body], [400, { organization: ['Invalid pk "999999" - object does not exist.'] }]);
      assert.equal((await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM inventories'))[0].n, before);
    });

    it('variables accept JSON, YAML, empty text and a JSON object; stored as given', async () => {
      for (const variables of ['{"a": 1}', 'a: 1\nb: [1, 2]', '', '---', '""']) {
        const res = await t.patch(`/api/v2/inventories/${inv.id}/`, { variables });
        assert.equal(res.status, 200, `${variables}: ${res.text}`);
        assert.equal((await stored(inv.id)).variables, variables);
      }
      const object = await t.patch(`/api/v2/inventories/${inv.id}/`, { variables: { a: { b: 1 } } });
      assert.equal(object.status, 200);
      assert.deepEqual(JSON.parse((await stored(inv.id)).variables), { a: { b: 1 } });
    });

    it('variable_data answers the variables as a mapping, and PUT/PATCH replace them', async () => {
      await t.patch(`/api/v2/inventories/${inv.id}/`, { variables: 'region: eu\nsize: 3' });
      const got = await t.get(`/api/v2/inventories/${inv.id}/variable_data/`);
      assert.deepEqual([got.status, got.body], [200, { region: 'eu', size: 3 }]);
      const put = await t.put(`/api/v2/inventories/${inv.id}/variable_data/`, { only: 'this' });
      assert.deepEqual([put.status, put.body], [200, { only: 'this' }]);
      assert.deepEqual(JSON.parse((await stored(inv.id)).variables), { only: 'this' });
      const patch = await t.patch(`/api/v2/inventories/${inv.id}/variable_data/`, { other: true });
      assert.deepEqual(patch.body, { other: true });
      const bad = await t.put(`/api/v2/inventories/${inv.id}/variable_data/`, [1, 2]);
      assert.deepEqual([bad.status, bad.body], [400, { variables: ['Must be valid JSON or YAML.'] }]);
      assert.deepEqual(JSON.parse((await stored(inv.id)).variables), { other: true });
      const records = await t.db.query<AnyRow>(`SELECT changes FROM activity_stream WHERE object1 = 'inventory' AND object1_id = $1 AND operation = 'update' ORDER BY id DESC LIMIT 1`, [inv.id]);
      assert.deepEqual(records[0].changes.variables, ['{"only": "this"}', '{"other": true}']);
    });

    it('computed fields are read-only', async () => {
      const res = await t.patch(`/api/v2/inventories/${inv.id}/`, { total_hosts: 99, has_active_failures: true, pending_deletion: true });
      assert.equal(res.status, 200);
      assert.deepEqual([res.body.total_hosts, res.body.has_active_failures, res.body.pending_deletion], [0, false, false]);
    });

    it('moves to another organization and its roles follow', async () => {
      const moving = await create({ name: 'Mover' });
      const res = await t.patch(`/api/v2/inventories/${moving.id}/`, { organization: otherOrgId });
      assert.equal(res.status, 200);
      const parents = await t.db.query<AnyRow>(
        `SELECT p.content_type, p.object_id, p.role_field FROM role_parents rp JOIN roles r ON r.id = rp.role_id JOIN roles p ON p.id = rp.parent_id
         WHERE r.content_type = 'inventory' AND r.object_id = $1 AND r.role_field = 'admin_role'`,
        [moving.id],
      );
      assert.deepEqual(parents, [{ content_type: 'organization', object_id: otherOrgId, role_field: 'inventory_admin_role' }]);
    });

    it('DELETE removes the inventory with its hosts, groups and roles', async () => {
      const doomed = await create({ name: 'Doomed' });
      const host = (await t.post(`/api/v2/inventories/${doomed.id}/hosts/`, { name: 'h1' })).body;
      const group = (await t.post(`/api/v2/inventories/${doomed.id}/groups/`, { name: 'g1' })).body;
      assert.equal((await t.post(`/api/v2/groups/${group.id}/hosts/`, { id: host.id })).status, 204);
      const res = await t.delete(`/api/v2/inventories/${doomed.id}/`);
      assert.equal(res.status, 204);
      assert.equal((await t.get(`/api/v2/inventories/${doomed.id}/`)).status, 404);
      for (const [table, column] of [['hosts', 'inventory_id'], ['groups', 'inventory_id']]) {
        assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM ${table} WHERE ${column} = $1`, [doomed.id])).length, 0, table);
      }
      assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM roles WHERE content_type = 'inventory' AND object_id = $1`, [doomed.id])).length, 0);
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM group_hosts WHERE host_id = $1', [host.id])).length, 0);
    });

    it('lists filter, search and order', async () => {
      await create({ name: 'Alpha inventory' });
      const res = await t.get(`/api/v2/inventories/?organization=${orgId}&search=alpha`);
      assert.deepEqual(res.body.results.map((i: any) => i.name), ['Alpha inventory']);
      const ordered = await t.get(`/api/v2/inventories/?organization=${orgId}`);
      const names = ordered.body.results.map((i: any) => i.name);
      assert.deepEqual(names, [...names].sort());
      assert.equal((await t.get('/api/v2/inventories/?organization__name=Lab')).body.count, 2);
    });
  });

  describe('computed fields follow every host and group change', () => {
    let inv: any;
    const fields = async () => {
      const row = await stored(inv.id);
      return {
        total_hosts: row.total_hosts,
        hosts_with_active_failures: row.hosts_with_active_failures,
        has_active_failures: row.has_active_failures,
        total_groups: row.total_groups,
      };
    };

    before(async () => {
      inv = await create({ name: 'Counted' });
    });

    it('creating hosts and groups counts them at once, also in the create response of the inventory', async () => {
      const h1 = await t.post(`/api/v2/inventories/${inv.id}/hosts/`, { name: 'h1' });
      assert.equal(h1.status, 201);
      assert.equal(h1.body.summary_fields.inventory.total_hosts, 1);
      await t.post('/api/v2/hosts/', { name: 'h2', inventory: inv.id });
      await t.post(`/api/v2/inventories/${inv.id}/groups/`, { name: 'web' });
      assert.deepEqual(await fields(), { total_hosts: 2, hosts_with_active_failures: 0, has_active_failures: false, total_groups: 1 });
      const got = await t.get(`/api/v2/inventories/${inv.id}/`);
      assert.deepEqual([got.body.total_hosts, got.body.total_groups], [2, 1]);
    });

    it('a failed host is counted, and stops being counted when it goes', async () => {
      const [h2] = await t.db.query<AnyRow>(`SELECT id FROM hosts WHERE inventory_id = $1 AND name = 'h2'`, [inv.id]);
      await t.db.query<AnyRow>('UPDATE hosts SET has_active_failures = true WHERE id = $1', [h2.id]);
      // A change through the API recomputes everything, as job runs will when they mark hosts.
      await t.patch(`/api/v2/hosts/${h2.id}/`, { description: 'failing' });
      assert.deepEqual(await fields(), { total_hosts: 2, hosts_with_active_failures: 1, has_active_failures: true, total_groups: 1 });
      assert.equal((await t.delete(`/api/v2/hosts/${h2.id}/`)).status, 204);
      assert.deepEqual(await fields(), { total_hosts: 1, hosts_with_active_failures: 0, has_active_failures: false, total_groups: 1 });
    });

    it('deleting a group counts it out', async () => {
      const [group] = await t.db.query<AnyRow>(`SELECT id FROM groups WHERE inventory_id = $1 AND name = 'web'`, [inv.id]);
      assert.equal((await t.delete(`/api/v2/groups/${group.id}/`)).status, 204);
      assert.equal((await fields()).total_groups, 0);
    });

    it('inventory sources are counted from their table', async () => {
      await t.db.query<AnyRow>(
        `INSERT INTO inventory_sources (name, inventory_id, source, last_update_failed) VALUES ('s1', $1, 'scm', true), ('s2', $1, 'scm', false)`,
        [inv.id],
      );
      await t.post(`/api/v2/inventories/${inv.id}/hosts/`, { name: 'h3' });
      const row = await stored(inv.id);
      assert.deepEqual([row.total_inventory_sources, row.inventory_sources_with_failures, row.has_inventory_sources], [2, 1, true]);
    });

    it('a write that fails changes no count', async () => {
      const before = await fields();
      const res = await t.post(`/api/v2/inventories/${inv.id}/hosts/`, { name: 'h9', variables: '[1]' });
      assert.equal(res.status, 400);
      assert.deepEqual(await fields(), before);
    });
  });

  describe('smart inventories', () => {
    let east: any;
    let west: any;
    let smart: any;
    const hostIds: Record<string, number> = {};
    const smartHosts = async (id: number) => (await t.get(`/api/v2/inventories/${id}/hosts/?page_size=200`)).body.results.map((h: any) => `${h.name}@${h.inventory}`);

    before(async () => {
      east = await create({ name: 'East' });
      west = await create({ name: 'West' });
      const foreign = (await t.post('/api/v2/inventories/', { name: 'Foreign', organization: otherOrgId })).body;
      for (const [inv, name] of [[east, 'web1'], [east, 'web2'], [east, 'db1'], [west, 'web1'], [west, 'cache1'], [foreign, 'web9']] as const) {
        const res = await t.post('/api/v2/hosts/', { name, inventory: inv.id });
        assert.equal(res.status, 201, res.text);
        hostIds[`${name}@${inv.name}`] = res.body.id;
      }
      await t.db.query<AnyRow>(`UPDATE hosts SET ansible_facts = '{"os": "Ubuntu", "cpus": 4, "net": {"ipv4": "10.0.0.2"}, "ifaces": ["eth0", "lo"]}' WHERE id = $1`, [hostIds['db1@East']]);
      await t.patch(`/api/v2/hosts/${hostIds['cache1@West']}/`, { description: 'rack 4 east' });
      await t.db.query<AnyRow>(`UPDATE hosts SET ansible_facts = '{"os": "Debian", "cpus": 2}' WHERE id = $1`, [hostIds['cache1@West']]);
      const group = (await t.post(`/api/v2/inventories/${west.id}/groups/`, { name: 'caches' })).body;
      await t.post(`/api/v2/groups/${group.id}/hosts/`, { id: hostIds['cache1@West'] });
    });

    it('holds the hosts of its organization matching the filter, one per name', async () => {
      smart = await create({ name: 'Webs', kind: 'smart', host_filter: 'name__icontains=WEB' });
      assert.equal(smart.kind, 'smart');
      assert.equal(smart.host_filter, 'name__icontains=WEB');
      // web1 is in East and West: the older host (East's) stands for the name; Foreign's web9 is of another organization.
      assert.deepEqual(await smartHosts(smart.id), [`web1@${east.id}`, `web2@${east.id}`]);
      assert.deepEqual([smart.total_hosts, smart.total_groups], [2, 0]);
    });

    it('follows host changes in the other inventories at once', async () => {
      const added = await t.post('/api/v2/hosts/', { name: 'web3', inventory: west.id });
      assert.equal((await stored(smart.id)).total_hosts, 3);
      await t.patch(`/api/v2/hosts/${added.body.id}/`, { name: 'app3' });
      assert.equal((await stored(smart.id)).total_hosts, 2);
      await t.delete(`/api/v2/hosts/${hostIds['web1@East']}/`);
      // West's web1 now stands for the name.
      assert.deepEqual(await smartHosts(smart.id), [`web1@${west.id}`, `web2@${east.id}`]);
      assert.deepEqual((await t.get(`/api/v2/hosts/${hostIds['web2@East']}/smart_inventories/`)).body.results.map((i: any) => i.id), [smart.id]);
    });

    const filters: [string, string[]][] = [
      ['groups__name=caches', ['cache1']],
      ['ansible_facts__os=Ubuntu', ['db1']],
      ['ansible_facts__cpus=4', ['db1']],
      ['ansible_facts__cpus="4"', []],
      ['ansible_facts__net__ipv4="10.0.0.2"', ['db1']],
      ['name=db1 or name=cache1', ['cache1', 'db1']],
      ['name__startswith=web and not name=web2', ['web1']],
      ['(name=db1 or name=web2) and ansible_facts__os=Ubuntu', ['db1']],
      ['inventory__name=West and name__icontains=c', ['cache1']],
      ['ansible_facts__ifaces[]=eth0', ['db1']],
      ['description__startswith="rack 4" or name="no such"', ['cache1']],
      ['search=cache', ['cache1']],
    ];
    for (const [filter, expected] of filters) {
      it(`host_filter ${filter}`, async () => {
        const res = await t.patch(`/api/v2/inventories/${smart.id}/`, { host_filter: filter });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual((await smartHosts(smart.id)).map((h: string) => h.split('@')[0]), expected);
        assert.equal(res.body.total_hosts, expected.length);
      });
    }

    const invalid: [string, string][] = [
      ['name__icontains', 'Invalid query name__icontains: expected field=value'],
      ['name=a and', 'Invalid query name=a and: expected field=value'],
      ['(name=a', 'Invalid query (name=a: missing ")"'],
      ['nosuchfield=1', 'Invalid query nosuchfield=1: Cannot filter on "nosuchfield": no such field.'],
      ['ansible_facts__os__icontains=ubu', 'ansible_facts does not support searching with __icontains'],
      ['enabled=maybe', 'Invalid query enabled=maybe: enabled: "maybe" is not a valid boolean.'],
    ];
    for (const [filter, message] of invalid) {
      it(`refuses host_filter ${filter}`, async () => {
        const before = await stored(smart.id);
        const res = await t.patch(`/api/v2/inventories/${smart.id}/`, { host_filter: filter });
        assert.deepEqual([res.status, res.body], [400, { host_filter: [message] }]);
        assert.equal((await stored(smart.id)).host_filter, before.host_filter);
      });
    }

    it('refuses a filter that fails when it runs (a bad regular expression), keeping the old one', async () => {
      const res = await t.patch(`/api/v2/inventories/${smart.id}/`, { host_filter: 'name__regex=(' });
      assert.equal(res.status, 400);
      assert.match(res.body.host_filter[0], /^Invalid query name__regex=\(: /);
      assert.equal((await stored(smart.id)).host_filter, 'search=cache');
    });

    it('takes no hosts or groups of its own', async () => {
      const host = await t.post(`/api/v2/inventories/${smart.id}/hosts/`, { name: 'own' });
      assert.deepEqual([host.status, host.body], [400, { inventory: ['Cannot create Host for Smart or Constructed Inventories'] }]);
      const group = await t.post('/api/v2/groups/', { name: 'own', inventory: smart.id });
      assert.deepEqual([group.status, group.body], [400, { inventory: ['Cannot create Group for Smart or Constructed Inventories'] }]);
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM hosts WHERE inventory_id = $1', [smart.id])).length, 0);
    });

    it('changes kind: a smart inventory becomes a plain one without its filter; an inventory with hosts cannot become smart', async () => {
      const refused = await t.patch(`/api/v2/inventories/${east.id}/`, { kind: 'smart', host_filter: 'name=x' });
      assert.deepEqual([refused.status, refused.body], [400, { kind: ['An inventory with hosts or groups cannot become a smart inventory.'] }]);
      const keepsFilter = await t.patch(`/api/v2/inventories/${smart.id}/`, { kind: '' });
      assert.deepEqual([keepsFilter.status, keepsFilter.body], [400, { host_filter: ['Only smart inventories may have a host_filter.'] }]);
      const plain = await t.patch(`/api/v2/inventories/${smart.id}/`, { kind: '', host_filter: null });
      assert.equal(plain.status, 200, plain.text);
      assert.deepEqual([plain.body.kind, plain.body.host_filter, plain.body.total_hosts], ['', null, 0]);
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM smart_inventory_memberships WHERE inventory_id = $1', [smart.id])).length, 0);
    });

    it('deleting an inventory takes its hosts out of the smart inventories', async () => {
      const all = await create({ name: 'Everything', kind: 'smart', host_filter: 'inventory__name__in=East,West and name__regex=.' });
      assert.equal(all.total_hosts, 5);
      await t.delete(`/api/v2/inventories/${west.id}/`);
      assert.equal((await stored(all.id)).total_hosts, 2);
    });
  });
});
