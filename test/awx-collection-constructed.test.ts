import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, ADMIN, type TestApp } from './helpers/app.ts';
import { runCollectionPlay } from './helpers/awx-collection.ts';
import { newHost, newInventory } from './helpers/factories.ts';

/**
 * The awx.awx collection on a constructed inventory. The collection this host installs (21.14)
 * has no kind=constructed in its inventory module and no limit in inventory_source, so the
 * inventory is made (with its limit) through the API; the
 * collection then does what AWX 24's documentation shows: it edits the auto-created source with
 * inventory_source and updates it with inventory_source_update, and leaves the inventory alone.
 */
describe('the awx.awx collection on constructed inventories', () => {
  let t: TestApp;
  let host: string;

  before(async () => {
    t = await createTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    host = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  });
  after(() => t.close());

  it('edits and updates the auto-created source of a constructed inventory', async () => {
    const orgId = (await t.get('/api/v2/organizations/Default/')).body.id;
    const input = await newInventory(t, orgId, { name: 'West', local: false });
    await newHost(t, input, { name: 'host3', variables: '{"role": "db"}' });
    await newHost(t, input, { name: 'host4', variables: '{"role": "web"}' });
    const made = await t.post('/api/v2/constructed_inventories/', { name: 'My Constructed', organization: orgId, limit: 'host3' });
    assert.equal(made.status, 201, made.text);
    assert.equal((await t.post(`/api/v2/inventories/${made.body.id}/input_inventories/`, { id: input.id })).status, 204);
    const source = 'Auto-created source for: My Constructed';
    const run = await runCollectionPlay(host, ADMIN, [
      { name: 'inventory', 'awx.awx.inventory': { name: 'My Constructed', organization: 'Default' } },
      { name: 'source', 'awx.awx.inventory_source': {
        name: source, inventory: 'My Constructed', verbosity: 2,
        source_vars: { plugin: 'constructed', strict: true, groups: { databases: "role == 'db'" } },
      } },
      { name: 'bad vars', 'awx.awx.inventory_source': { name: source, inventory: 'My Constructed', source_vars: { nonsense: 1 } } },
      { name: 'update', 'awx.awx.inventory_source_update': { name: source, inventory: 'My Constructed', wait: true, timeout: 120 } },
    ]);
    const byName = Object.fromEntries(run.tasks.map((r) => [r.task, r]));
    assert.equal(byName.inventory.failed, false, JSON.stringify(byName.inventory.result).slice(0, 800));
    assert.equal(byName.inventory.changed, false, JSON.stringify(byName.inventory.result).slice(0, 800));
    assert.equal(byName.source.failed, false, byName.source.msg);
    assert.equal(byName['bad vars'].failed, true);
    assert.match(JSON.stringify(byName['bad vars'].result), /not an option of the constructed inventory plugin/);
    assert.equal(byName.update.failed, false, JSON.stringify(byName.update.result).slice(0, 800));
    const shown = (await t.get(`/api/v2/constructed_inventories/${made.body.id}/`)).body;
    assert.deepEqual([shown.limit, shown.verbosity, JSON.parse(shown.source_vars).groups], ['host3', 2, { databases: "role == 'db'" }]);
    assert.equal(shown.kind, 'constructed');
    const hosts = (await t.get(`/api/v2/inventories/${made.body.id}/hosts/`)).body.results.map((h: any) => h.name);
    assert.deepEqual(hosts, ['host3']);
    const groups = (await t.get(`/api/v2/inventories/${made.body.id}/groups/`)).body.results.map((g: any) => g.name);
    assert.deepEqual(groups, ['databases']);
  });
});
