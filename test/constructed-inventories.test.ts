import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newUser, type TestApp } from './helpers/app.ts';
import { newHost, newInventory, type User } from './helpers/factories.ts';
import { waitForRun } from './helpers/jobs.ts';

const SOURCE_VARS = {
  compose: { tier_upper: 'tier | upper' },
  groups: { big: 'size | int > 2' },
  keyed_groups: [{ key: 'tier', prefix: 'tier' }],
  strict: true,
};

describe('constructed inventories', () => {
  let t: TestApp;
  let orgId: number;
  let webId: number;
  let dbId: number;
  let plain: User;
  let otherAdmin: User;
  let otherOrgInventory: number;

  before(async () => {
    t = await createTestApp();
    orgId = (await t.get('/api/v2/organizations/Default/')).body.id;
    webId = (await newInventory(t, orgId, { name: 'Web', local: false })).id;
    dbId = (await newInventory(t, orgId, { name: 'Db', local: false })).id;
    await newHost(t, webId, { name: 'web1', variables: JSON.stringify({ tier: 'front', size: 3 }) });
    await newHost(t, webId, { name: 'web2', variables: JSON.stringify({ tier: 'front', size: 1 }) });
    await newHost(t, dbId, { name: 'db1', variables: JSON.stringify({ tier: 'back', size: 8 }) });
    await newHost(t, dbId, { name: 'off', enabled: false, variables: JSON.stringify({ tier: 'back', size: 1 }) });
    plain = await newUser(t);
    const other = await newOrg(t, { name: 'Other' });
    otherAdmin = await newUser(t, { admin: other.id });
    otherOrgInventory = (await newInventory(t, other.id, { name: 'Theirs', local: false })).id;
  });
  after(() => t.close());

  const create = (body: Record<string, unknown>, as?: User) => t.post('/api/v2/constructed_inventories/', body, { as });

  it('creates a constructed inventory with its hidden source, shown with the source fields', async () => {
    const res = await create({ name: 'Built', organization: orgId, source_vars: JSON.stringify(SOURCE_VARS), limit: 'all', verbosity: 2, update_cache_timeout: 60 });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.kind, 'constructed');
    assert.equal(res.body.url, `/api/v2/constructed_inventories/${res.body.id}/`);
    assert.equal('host_filter' in res.body, false);
    assert.deepEqual(JSON.parse(res.body.source_vars), SOURCE_VARS);
    assert.deepEqual([res.body.limit, res.body.verbosity, res.body.update_cache_timeout], ['all', 2, 60]);
    assert.equal(res.body.related.input_inventories, `/api/v2/inventories/${res.body.id}/input_inventories/`);
    const sources = (await t.get(`/api/v2/inventories/${res.body.id}/inventory_sources/`)).body.results;
    assert.deepEqual(sources.map((s: any) => [s.name, s.source, s.overwrite, s.overwrite_vars, s.update_on_launch, s.verbosity]),
      [['Auto-created source for: Built', 'constructed', true, true, true, 2]]);
    const asInventory = (await t.get(`/api/v2/inventories/${res.body.id}/`)).body;
    assert.equal(asInventory.related.constructed_url, res.body.url);
    const listed = (await t.get('/api/v2/constructed_inventories/')).body.results.map((i: any) => i.name);
    assert.deepEqual(listed, ['Built']);
    assert.deepEqual((await t.get('/api/v2/inventories/?kind=constructed')).body.results.map((i: any) => i.name), ['Built']);
    assert.equal((await t.get(`/api/v2/constructed_inventories/${webId}/`)).status, 404);
  });

  it('refuses bad source_vars with a 400 and stores nothing', async () => {
    const before = (await t.db.query('SELECT count(*)::int AS n FROM inventories'))[0].n;
    for (const vars of [{ compose: 'not a mapping' }, { keyed_groups: [{ prefix: 'x' }] }, { plugin: 'script' }, { unknown_option: 1 }, { strict: 'yes' }]) {
      const res = await create({ name: 'Bad', organization: orgId, source_vars: JSON.stringify(vars) });
      assert.equal(res.status, 400, res.text);
      assert.ok(res.body.source_vars, res.text);
    }
    assert.equal((await create({ name: 'Bad', organization: orgId, verbosity: 7 })).status, 400);
    assert.equal((await create({ name: 'Bad', organization: orgId, source_vars: '{not yaml: [' })).status, 400);
    assert.equal((await t.db.query('SELECT count(*)::int AS n FROM inventories'))[0].n, before);
    const id = (await t.get('/api/v2/constructed_inventories/?name=Built')).body.results[0].id;
    const patch = await t.patch(`/api/v2/constructed_inventories/${id}/`, { source_vars: '{"compose": []}' });
    assert.equal(patch.status, 400, patch.text);
  });

  it('keeps the hidden source to the constructed fields and refuses constructed sources elsewhere', async () => {
    const id = (await t.get('/api/v2/constructed_inventories/?name=Built')).body.results[0].id;
    const source = (await t.get(`/api/v2/inventories/${id}/inventory_sources/`)).body.results[0];
    const renamed = await t.patch(`/api/v2/inventory_sources/${source.id}/`, { overwrite: false });
    assert.deepEqual([renamed.status, renamed.body], [400, { error: "Cannot change field 'overwrite' on a constructed inventory source." }]);
    assert.equal((await t.patch(`/api/v2/inventory_sources/${source.id}/`, { limit: 'web*' })).status, 200);
    assert.equal((await t.get(`/api/v2/constructed_inventories/${id}/`)).body.limit, 'web*');
    await t.patch(`/api/v2/constructed_inventories/${id}/`, { limit: 'all' });
    const made = await t.post(`/api/v2/inventories/${webId}/inventory_sources/`, { name: 'C', source: 'constructed' });
    assert.deepEqual([made.status, made.body], [400, { error: 'constructed not a valid source for inventory' }]);
    const turned = await t.patch(`/api/v2/inventories/${webId}/`, { kind: 'constructed' });
    assert.equal(turned.status, 405, turned.text);
  });

  it('keeps input inventories in order and refuses constructed inputs', async () => {
    const id = (await t.get('/api/v2/constructed_inventories/?name=Built')).body.results[0].id;
    const url = `/api/v2/inventories/${id}/input_inventories/`;
    assert.equal((await t.post(url, { id: dbId })).status, 204);
    assert.equal((await t.post(url, { id: webId })).status, 204);
    assert.deepEqual((await t.get(url)).body.results.map((i: any) => i.name), ['Db', 'Web']);
    const nested = await create({ name: 'Nested', organization: orgId });
    const refused = await t.post(url, { id: nested.body.id });
    assert.deepEqual([refused.status, refused.body], [400, { error: 'You cannot add a constructed inventory to another constructed inventory.' }]);
    assert.equal((await t.post(url, { id: dbId, disassociate: true })).status, 204);
    assert.equal((await t.post(url, { id: dbId })).status, 204);
    assert.deepEqual((await t.get(url)).body.results.map((i: any) => i.name), ['Web', 'Db']);
    const onPlain = await t.post(`/api/v2/inventories/${webId}/input_inventories/`, { id: dbId });
    assert.equal(onPlain.status, 400, onPlain.text);
  });

  it('updates through ansible-inventory with the constructed plugin: compose, groups, keyed_groups, limit', async () => {
    const inventory = (await t.get('/api/v2/constructed_inventories/?name=Built')).body.results[0];
    await t.patch(`/api/v2/constructed_inventories/${inventory.id}/`, { limit: '!web2' });
    const source = (await t.get(`/api/v2/inventories/${inventory.id}/inventory_sources/`)).body.results[0];
    const started = await t.post(`/api/v2/inventory_sources/${source.id}/update/`);
    assert.equal(started.status, 202, started.text);
    const done = await waitForRun(t, started.body.url);
    assert.equal(done.status, 'successful', (await t.get(`${started.body.url}stdout/?format=txt`)).text);
    const hosts = (await t.get(`/api/v2/inventories/${inventory.id}/hosts/`)).body.results;
    // web2 left by the limit, "off" because only enabled hosts are read (as AWX writes its inputs).
    assert.deepEqual(hosts.map((h: any) => h.name), ['db1', 'web1']);
    const web1 = hosts.find((h: any) => h.name === 'web1');
    const original = (await t.get(`/api/v2/hosts/?name=web1&inventory=${webId}`)).body.results[0];
    assert.equal(web1.instance_id, String(original.id));
    assert.equal(web1.related.original_host, `/api/v2/hosts/${original.id}/`);
    assert.equal(JSON.parse(web1.variables).tier_upper, 'FRONT');
    const groups = (await t.get(`/api/v2/inventories/${inventory.id}/groups/`)).body.results.map((g: any) => g.name).sort();
    assert.deepEqual(groups, ['big', 'tier_back', 'tier_front']);
    const big = (await t.get(`/api/v2/inventories/${inventory.id}/groups/?name=big`)).body.results[0];
    assert.deepEqual((await t.get(`/api/v2/groups/${big.id}/hosts/`)).body.results.map((h: any) => h.name), ['db1', 'web1']);
    const made = await t.post(`/api/v2/inventories/${inventory.id}/hosts/`, { name: 'extra' });
    assert.equal(made.status, 400);
  });

  it('refuses a plain user and another organization\'s admin', async () => {
    const inventory = (await t.get('/api/v2/constructed_inventories/?name=Built')).body.results[0];
    assert.equal((await create({ name: 'Mine', organization: orgId }, plain)).status, 403);
    assert.equal((await t.get(`/api/v2/constructed_inventories/${inventory.id}/`, { as: plain })).status, 403);
    assert.equal((await t.patch(`/api/v2/constructed_inventories/${inventory.id}/`, { source_vars: '{}' }, { as: otherAdmin })).status, 403);
    assert.deepEqual((await t.get('/api/v2/constructed_inventories/', { as: otherAdmin })).body.results, []);
    // Another organization's admin cannot read my inventories, so cannot use them as inputs.
    const theirs = await create({ name: 'Theirs built', organization: (await t.get('/api/v2/organizations/Other/')).body.id }, otherAdmin);
    assert.equal(theirs.status, 201, theirs.text);
    const attach = await t.post(`/api/v2/inventories/${theirs.body.id}/input_inventories/`, { id: webId }, { as: otherAdmin });
    assert.equal(attach.status, 403);
    assert.equal((await t.post(`/api/v2/inventories/${theirs.body.id}/input_inventories/`, { id: otherOrgInventory }, { as: otherAdmin })).status, 204);
    // ...nor attach theirs to mine.
    assert.equal((await t.post(`/api/v2/inventories/${inventory.id}/input_inventories/`, { id: otherOrgInventory }, { as: otherAdmin })).status, 403);
    // A reader of the constructed inventory cannot change its inputs.
    await grant(t, plain, `/api/v2/inventories/${inventory.id}/`, 'read_role');
    assert.equal((await t.post(`/api/v2/inventories/${inventory.id}/input_inventories/`, { id: dbId, disassociate: true }, { as: plain })).status, 403);
    assert.equal((await t.get(`/api/v2/inventories/${inventory.id}/input_inventories/`)).body.count, 2);
  });

  it('an inventory its admin may only read is not an input: a reader would run jobs on its hosts', async () => {
    const other = (await t.get('/api/v2/organizations/Other/')).body.id;
    const theirs = await create({ name: 'Built from a read one', organization: other }, otherAdmin);
    assert.equal(theirs.status, 201, theirs.text);
    await grant(t, otherAdmin, `/api/v2/inventories/${webId}/`, 'read_role');
    const refused = await t.post(`/api/v2/inventories/${theirs.body.id}/input_inventories/`, { id: webId }, { as: otherAdmin });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.detail, 'You need the use role of an inventory to make it an input of a constructed inventory.');
    assert.equal((await t.get(`/api/v2/inventories/${theirs.body.id}/input_inventories/`)).body.count, 0);
    await grant(t, otherAdmin, `/api/v2/inventories/${webId}/`, 'use_role');
    assert.equal((await t.post(`/api/v2/inventories/${theirs.body.id}/input_inventories/`, { id: webId }, { as: otherAdmin })).status, 204);
  });
});
