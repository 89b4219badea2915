import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

describe('hosts', () => {
  let t: TestApp;
  let orgId: number;
  let prod: any;
  let dev: any;

  before(async () => {
    t = await createTestApp();
    orgId = (await newOrg(t, { name: 'Ops' })).id;
    prod = (await t.post('/api/v2/inventories/', { name: 'Prod', organization: orgId })).body;
    dev = (await t.post('/api/v2/inventories/', { name: 'Dev', organization: orgId })).body;
  });
  after(() => t.close());

  const stored = async (id: number) => (await t.db.query<AnyRow>('SELECT * FROM hosts WHERE id = $1', [id]))[0];
  const newHost = async (inventory: number, name: string, extra: Record<string, unknown> = {}) => {
    const res = await t.post('/api/v2/hosts/', { name, inventory, ...extra });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  describe('CRUD', () => {
    let host: any;

    it('POST /hosts/ creates a host with its fields, links and summaries', async () => {
      const res = await t.post('/api/v2/hosts/', { name: 'web1', inventory: prod.id, variables: 'ansible_host: 10.0.0.1', instance_id: 'i-1' });
      assert.equal(res.status, 201, res.text);
      host = res.body;
      assert.equal(host.type, 'host');
      assert.deepEqual(
        [host.name, host.description, host.inventory, host.enabled, host.instance_id, host.variables],
        ['web1', '', prod.id, true, 'i-1', 'ansible_host: 10.0.0.1'],
      );
      assert.deepEqual(
        [host.has_active_failures, host.has_inventory_sources, host.last_job, host.last_job_host_summary, host.ansible_facts_modified],
        [false, false, null, null, null],
      );
      assert.deepEqual(host.summary_fields.inventory, {
        id: prod.id, name: 'Prod', description: '', has_active_failures: false, total_hosts: 1, hosts_with_active_failures: 0, total_groups: 0,
        has_inventory_sources: false, total_inventory_sources: 0, inventory_sources_with_failures: 0, organization_id: orgId, kind: '',
      });
      assert.deepEqual(host.summary_fields.groups, { count: 0, results: [] });
      assert.deepEqual(host.summary_fields.user_capabilities, { edit: true, delete: true });
      const base = `/api/v2/hosts/${host.id}/`;
      assert.equal(host.related.named_url, '/api/v2/hosts/web1++Prod++Ops/');
      for (const [name, url] of Object.entries({
        inventory: `/api/v2/inventories/${prod.id}/`, groups: `${base}groups/`, all_groups: `${base}all_groups/`, smart_inventories: `${base}smart_inventories/`,
        variable_data: `${base}variable_data/`, ansible_facts: `${base}ansible_facts/`, activity_stream: `${base}activity_stream/`,
      })) assert.equal(host.related[name], url, name);
      assert.equal(host.related.last_job, undefined);
      assert.deepEqual((await t.get('/api/v2/hosts/web1++Prod++Ops/')).body, host);
    });

    it('POST /inventories/{id}/hosts/ creates in that inventory, whatever the body says', async () => {
      const res = await t.post(`/api/v2/inventories/${dev.id}/hosts/`, { name: 'web1', inventory: prod.id });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.inventory, dev.id);
      const list = await t.get(`/api/v2/inventories/${dev.id}/hosts/`);
      assert.deepEqual(list.body.results.map((h: any) => h.id), [res.body.id]);
    });

    it('names are unique within an inventory', async () => {
      const res = await t.post('/api/v2/hosts/', { name: 'web1', inventory: prod.id });
      assert.deepEqual([res.status, res.body], [400, { __all__: ['Host with this Name and Inventory already exists.'] }]);
    });

    it('a name with a port sets ansible_ssh_port in the variables', async () => {
      const res = await t.post('/api/v2/hosts/', { name: 'db1:2222', inventory: prod.id, variables: 'a: 1' });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.name, 'db1');
      assert.deepEqual(JSON.parse((await stored(res.body.id)).variables), { a: 1, ansible_ssh_port: 2222 });
      const bad = await t.post('/api/v2/hosts/', { name: 'db2:99999', inventory: prod.id });
      assert.deepEqual([bad.status, bad.body], [400, { name: ['Invalid port specification: 99999'] }]);
      const taken = await t.post('/api/v2/hosts/', { name: 'db1:22', inventory: prod.id });
      assert.deepEqual([taken.status, taken.body], [400, { __all__: ['Host with this Name and Inventory already exists.'] }]);
      const ipv6 = await t.post('/api/v2/hosts/', { name: 'fe80::1', inventory: prod.id });
      assert.equal(ipv6.body.name, 'fe80::1');
    });

    it('a host may not take the name of a group of its inventory', async () => {
      await t.post(`/api/v2/inventories/${prod.id}/groups/`, { name: 'web' });
      const res = await t.post('/api/v2/hosts/', { name: 'web', inventory: prod.id });
      assert.deepEqual([res.status, res.body], [400, { __all__: ['A Group with that name already exists.'] }]);
      assert.equal((await t.post('/api/v2/hosts/', { name: 'web', inventory: dev.id })).status, 201);
    });

    it('PATCH changes fields; read-only ones are ignored; the inventory never changes', async () => {
      const res = await t.patch(`/api/v2/hosts/${host.id}/`, { enabled: false, description: 'Front', has_active_failures: true, last_job: 5, inventory: prod.id });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.body.enabled, res.body.description, res.body.has_active_failures, res.body.last_job], [false, 'Front', false, null]);
      const moved = await t.patch(`/api/v2/hosts/${host.id}/`, { inventory: dev.id });
      assert.deepEqual([moved.status, moved.body], [403, { detail: 'Unable to change inventory on a host.' }]);
      assert.equal((await stored(host.id)).inventory_id, prod.id);
      const badVars = await t.patch(`/api/v2/hosts/${host.id}/`, { variables: 'a: [' });
      assert.deepEqual([badVars.status, badVars.body], [400, { variables: ['Must be valid JSON or YAML.'] }]);
    });

    it('ansible_facts answers the stored facts, read-only', async () => {
      assert.deepEqual((await t.get(`/api/v2/hosts/${host.id}/ansible_facts/`)).body, {});
      await t.db.query<AnyRow>(`UPDATE hosts SET ansible_facts = '{"ansible_distribution": "Debian"}', ansible_facts_modified = now() WHERE id = $1`, [host.id]);
      assert.deepEqual((await t.get(`/api/v2/hosts/${host.id}/ansible_facts/`)).body, { ansible_distribution: 'Debian' });
      assert.equal((await t.patch(`/api/v2/hosts/${host.id}/ansible_facts/`, { a: 1 })).status, 405);
      assert.notEqual((await t.get(`/api/v2/hosts/${host.id}/`)).body.ansible_facts_modified, null);
    });

    it('variable_data reads and replaces the host variables', async () => {
      assert.deepEqual((await t.get(`/api/v2/hosts/${host.id}/variable_data/`)).body, { ansible_host: '10.0.0.1' });
      const res = await t.put(`/api/v2/hosts/${host.id}/variable_data/`, { ansible_host: '10.0.0.9' });
      assert.deepEqual(res.body, { ansible_host: '10.0.0.9' });
      assert.equal((await stored(host.id)).variables, '{"ansible_host": "10.0.0.9"}');
    });

    it('summary_fields show the last job when there is one', async () => {
      const [job] = await t.db.query<AnyRow>(
        `INSERT INTO unified_jobs (kind, name, status, failed, finished) VALUES ('job', 'Deploy', 'failed', true, '2026-01-02T03:04:05Z') RETURNING id`,
      );
      await t.db.query<AnyRow>('UPDATE hosts SET last_job_id = $1 WHERE id = $2', [job.id, host.id]);
      const res = await t.get(`/api/v2/hosts/${host.id}/`);
      assert.equal(res.body.last_job, job.id);
      assert.equal(res.body.related.last_job, `/api/v2/jobs/${job.id}/`);
      assert.deepEqual(res.body.summary_fields.last_job, {
        id: job.id, name: 'Deploy', description: '', finished: '2026-01-02T03:04:05.000Z', status: 'failed', failed: true, license_error: false,
      });
    });

    it('DELETE removes the host and its group links', async () => {
      const doomed = await newHost(prod.id, 'doomed');
      const group = (await t.post(`/api/v2/inventories/${prod.id}/groups/`, { name: 'doomed-group' })).body;
      await t.post(`/api/v2/groups/${group.id}/hosts/`, { id: doomed.id });
      assert.equal((await t.delete(`/api/v2/hosts/${doomed.id}/`)).status, 204);
      assert.equal(await stored(doomed.id), undefined);
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM group_hosts WHERE host_id = $1', [doomed.id])).length, 0);
      const [record] = await t.db.query<AnyRow>(`SELECT changes FROM activity_stream WHERE object1 = 'host' AND object1_id = $1 AND operation = 'delete'`, [doomed.id]);
      assert.equal(record.changes.name, 'doomed');
    });
  });

  describe('groups of a host', () => {
    let host: any;
    let web: any;
    let east: any;
    let all: any;

    before(async () => {
      host = await newHost(prod.id, 'app1');
      const group = (name: string) => t.post(`/api/v2/inventories/${prod.id}/groups/`, { name }).then((r) => r.body);
      [web, east, all] = [await group('apps'), await group('east'), await group('everything')];
      await t.post(`/api/v2/groups/${all.id}/children/`, { id: east.id });
      await t.post(`/api/v2/groups/${east.id}/children/`, { id: web.id });
    });

    it('attach {id} links a group (204), detach unlinks it', async () => {
      const res = await t.post(`/api/v2/hosts/${host.id}/groups/`, { id: web.id });
      assert.deepEqual([res.status, res.text], [204, '']);
      assert.deepEqual((await t.get(`/api/v2/hosts/${host.id}/groups/`)).body.results.map((g: any) => g.name), ['apps']);
      assert.deepEqual((await t.db.query<AnyRow>('SELECT group_id FROM group_hosts WHERE host_id = $1', [host.id])).map((r) => r.group_id), [web.id]);
      const [record] = await t.db.query<AnyRow>(`SELECT object2, object2_id, object_association FROM activity_stream WHERE operation = 'associate' AND object1 = 'host' AND object1_id = $1`, [host.id]);
      assert.deepEqual(record, { object2: 'group', object2_id: web.id, object_association: 'groups' });
      assert.equal((await t.post(`/api/v2/hosts/${host.id}/groups/`, { id: web.id, disassociate: true })).status, 204);
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM group_hosts WHERE host_id = $1', [host.id])).length, 0);
    });

    it('all_groups holds the groups above its groups too; summary_fields count them', async () => {
      await t.post(`/api/v2/hosts/${host.id}/groups/`, { id: web.id });
      const res = await t.get(`/api/v2/hosts/${host.id}/all_groups/`);
      assert.deepEqual(res.body.results.map((g: any) => g.name), ['apps', 'east', 'everything']);
      assert.deepEqual((await t.get(`/api/v2/hosts/${host.id}/`)).body.summary_fields.groups, { count: 1, results: [{ id: web.id, name: 'apps' }] });
      assert.deepEqual((await t.get(`/api/v2/hosts/?all_groups__name=everything&name=app1`)).body.count, 1);
    });

    it('summary_fields.groups shows the first five by id and counts all', async () => {
      const many = await newHost(prod.id, 'many');
      const ids: number[] = [];
      for (let i = 0; i < 7; i += 1) {
        const g = (await t.post(`/api/v2/inventories/${prod.id}/groups/`, { name: `many-${i}` })).body;
        ids.push(g.id);
        await t.post(`/api/v2/hosts/${many.id}/groups/`, { id: g.id });
      }
      const res = await t.get(`/api/v2/hosts/?name=many`);
      assert.deepEqual(res.body.results[0].summary_fields.groups, { count: 7, results: ids.slice(0, 5).map((id, i) => ({ id, name: `many-${i}` })) });
    });

    it('a group of another inventory cannot be attached (400), a missing one is 404', async () => {
      const other = (await t.post(`/api/v2/inventories/${dev.id}/groups/`, { name: 'dev-group' })).body;
      const res = await t.post(`/api/v2/hosts/${host.id}/groups/`, { id: other.id });
      assert.deepEqual([res.status, res.body], [400, { detail: 'Cannot associate two items from different inventories.' }]);
      assert.equal((await t.post(`/api/v2/hosts/${host.id}/groups/`, { id: 999999 })).status, 404);
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM group_hosts WHERE group_id = $1', [other.id])).length, 0);
    });
  });

  describe('lists', () => {
    it('/hosts/ lists hosts of every inventory, ordered by name, filterable', async () => {
      const res = await t.get('/api/v2/hosts/?page_size=200');
      const names = res.body.results.map((h: any) => h.name);
      assert.deepEqual(names, [...names].sort());
      assert.ok(res.body.results.some((h: any) => h.inventory === dev.id) && res.body.results.some((h: any) => h.inventory === prod.id));
      assert.equal((await t.get(`/api/v2/hosts/?inventory=${dev.id}`)).body.count, 2);
      assert.equal((await t.get('/api/v2/hosts/?inventory__name=Dev&name=web')).body.count, 1);
      assert.equal((await t.get('/api/v2/hosts/?groups__name=apps')).body.count, 1);
      assert.equal((await t.get('/api/v2/hosts/?search=app1')).body.count, 1);
      assert.equal((await t.get('/api/v2/hosts/?enabled=false')).body.count, 1);
    });
  });
});
