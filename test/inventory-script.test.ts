import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';
import { inventoryScript } from '../src/inventory/script.ts';
import { refreshInventoryComputedFields } from '../src/inventory/computed-fields.ts';

const run = promisify(execFile);

/** An executable inventory script answering --list and --host from the JSON files next to it, as Ansible's script plugin calls it. */
const SCRIPT = `#!/usr/bin/python3
import json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
if sys.argv[1] == '--list':
    print(open(os.path.join(here, 'list.json')).read())
else:
    print(json.dumps(json.load(open(os.path.join(here, 'hosts.json'))).get(sys.argv[2], {})))
`;

describe('inventory script', () => {
  let t: TestApp;
  let inv: any;
  const ids: Record<string, number> = {};
  let work: string;

  before(async () => {
    t = await createTestApp();
    work = await mkdtemp(path.join(tmpdir(), 'drover-inventory-script-'));
    const orgId = (await newOrg(t)).id;
    inv = (await t.post('/api/v2/inventories/', { name: 'Prod', organization: orgId, variables: 'env: prod\nlevel: inventory' })).body;
    const group = async (name: string, variables = '') => (ids[name] = (await t.post(`/api/v2/inventories/${inv.id}/groups/`, { name, variables })).body.id);
    const host = async (name: string, variables = '', enabled = true) =>
      (ids[name] = (await t.post(`/api/v2/inventories/${inv.id}/hosts/`, { name, variables, enabled })).body.id);
    await group('web', 'level: web');
    await group('db');
    await group('east', '{"region": "east"}');
    await group('empty');
    await host('web1', 'ansible_host: 10.0.0.1');
    await host('web2', '', false);
    await host('db1', '{"ansible_port": 2200}');
    await host('lone', 'level: host');
    await t.post(`/api/v2/groups/${ids.web}/hosts/`, { id: ids.web1 });
    await t.post(`/api/v2/groups/${ids.web}/hosts/`, { id: ids.web2 });
    await t.post(`/api/v2/groups/${ids.db}/hosts/`, { id: ids.db1 });
    await t.post(`/api/v2/groups/${ids.east}/children/`, { id: ids.web });
  });
  after(async () => {
    await rm(work, { recursive: true, force: true });
    await t.close();
  });

  const script = async (query = '') => {
    const res = await t.get(`/api/v2/inventories/${inv.id}/script/${query}`);
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  it('answers the inventory as Ansible JSON: ungrouped hosts and every group under all, enabled hosts only', async () => {
    assert.deepEqual(await script('?hostvars=1'), {
      all: { hosts: ['lone'], children: ['db', 'east', 'empty', 'web'], vars: { env: 'prod', level: 'inventory' } },
      db: { hosts: ['db1'] },
      east: { children: ['web'], vars: { region: 'east' } },
      web: { hosts: ['web1'], vars: { level: 'web' } },
      _meta: { hostvars: { db1: { ansible_port: 2200 }, lone: { level: 'host' }, web1: { ansible_host: '10.0.0.1' } } },
    });
  });

  it('all=1 includes disabled hosts; towervars adds remote_tower_enabled and remote_tower_id', async () => {
    const data = await script('?hostvars=1&towervars=1&all=1');
    assert.deepEqual(data.web.hosts, ['web1', 'web2']);
    assert.deepEqual(data._meta.hostvars.web2, { remote_tower_enabled: 'false', remote_tower_id: ids.web2 });
    assert.deepEqual(data._meta.hostvars.web1, { ansible_host: '10.0.0.1', remote_tower_enabled: 'true', remote_tower_id: ids.web1 });
  });

  it('without hostvars (or hostvars=0) there is no _meta', async () => {
    assert.equal((await script())._meta, undefined);
    assert.equal((await script('?hostvars=0'))._meta, undefined);
  });

  it('?host= answers one host variables; a disabled host only with all=1; an unknown one 404', async () => {
    assert.deepEqual(await script('?host=web1'), { ansible_host: '10.0.0.1' });
    assert.equal((await t.get(`/api/v2/inventories/${inv.id}/script/?host=web2`)).status, 404);
    assert.deepEqual(await script('?host=web2&all=1'), {});
    assert.equal((await t.get(`/api/v2/inventories/${inv.id}/script/?host=nope`)).status, 404);
  });

  it('subset=sliceNofM keeps every M-th host by name', async () => {
    const first = await script('?hostvars=1&subset=slice1of2');
    assert.deepEqual(Object.keys(first._meta.hostvars), ['db1', 'web1']);
    assert.deepEqual([first.all.hosts, first.web.hosts, first.db.hosts], [[], ['web1'], ['db1']]);
    const second = await script('?hostvars=1&subset=slice2of2');
    assert.deepEqual([Object.keys(second._meta.hostvars), second.all.hosts, second.web, second.db], [['lone'], ['lone'], { vars: { level: 'web' } }, undefined]);
    for (const [subset, detail] of [['bogus', 'Subset does not use any supported syntax.'], ['slice3of2', 'Slice number must be less than total number of slices.'], ['slicexofy', 'Could not parse subset as slice specification.']]) {
      const res = await t.get(`/api/v2/inventories/${inv.id}/script/?subset=${subset}`);
      assert.deepEqual([res.status, res.body], [400, { detail }]);
    }
  });

  it('a smart inventory answers its hosts under all, without groups', async () => {
    const smart = (await t.post('/api/v2/inventories/', { name: 'Webs', organization: inv.organization, kind: 'smart', host_filter: 'name__startswith=web', variables: 'x: 1' })).body;
    const res = await t.get(`/api/v2/inventories/${smart.id}/script/?hostvars=1&all=1`);
    assert.deepEqual(res.body, { all: { hosts: ['web1', 'web2'], vars: { x: 1 } }, _meta: { hostvars: { web1: { ansible_host: '10.0.0.1' }, web2: {} } } });
    assert.deepEqual((await t.get(`/api/v2/inventories/${smart.id}/script/?host=web1`)).body, { ansible_host: '10.0.0.1' });
  });

  it('ansible-inventory reads it as AWX would serve it: groups, nesting and variable precedence', async () => {
    const dir = path.join(work, 'with-meta');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'list.json'), JSON.stringify(await script('?hostvars=1&towervars=1&all=1')));
    await writeFile(path.join(dir, 'hosts.json'), '{}');
    await writeFile(path.join(dir, 'inventory.py'), SCRIPT);
    await chmod(path.join(dir, 'inventory.py'), 0o755);
    const env = { ...process.env, HOME: work, ANSIBLE_LOCAL_TEMP: path.join(work, 'tmp'), ANSIBLE_NOCOLOR: '1' };
    const { stdout } = await run('ansible-inventory', ['-i', path.join(dir, 'inventory.py'), '--list'], { env });
    const seen = JSON.parse(stdout);
    assert.deepEqual(seen.all.children.sort(), ['db', 'east', 'empty', 'ungrouped', 'web']);
    assert.deepEqual(seen.east.children, ['web']);
    assert.deepEqual(seen.web.hosts.sort(), ['web1', 'web2']);
    assert.deepEqual(seen.ungrouped.hosts, ['lone']);
    assert.deepEqual(seen._meta.hostvars.web1, {
      ansible_host: '10.0.0.1', env: 'prod', level: 'web', region: 'east', remote_tower_enabled: 'true', remote_tower_id: ids.web1,
    });
    assert.deepEqual(seen._meta.hostvars.lone, { env: 'prod', level: 'host', remote_tower_enabled: 'true', remote_tower_id: ids.lone });
  });

  it('without _meta, ansible-inventory asks ?host= for each host and gets the same variables', async () => {
    const dir = path.join(work, 'per-host');
    await mkdir(dir, { recursive: true });
    const list = await script();
    const hosts: Record<string, unknown> = {};
    for (const name of ['web1', 'db1', 'lone']) hosts[name] = await script(`?host=${name}`);
    await writeFile(path.join(dir, 'list.json'), JSON.stringify(list));
    await writeFile(path.join(dir, 'hosts.json'), JSON.stringify(hosts));
    await writeFile(path.join(dir, 'inventory.py'), SCRIPT);
    await chmod(path.join(dir, 'inventory.py'), 0o755);
    const env = { ...process.env, HOME: work, ANSIBLE_LOCAL_TEMP: path.join(work, 'tmp'), ANSIBLE_NOCOLOR: '1' };
    const seen = JSON.parse((await run('ansible-inventory', ['-i', path.join(dir, 'inventory.py'), '--list'], { env })).stdout);
    assert.deepEqual(Object.keys(seen._meta.hostvars).sort(), ['db1', 'lone', 'web1']);
    assert.deepEqual(seen._meta.hostvars.db1, { ansible_port: 2200, env: 'prod', level: 'inventory' });
  });

  it('stays correct at 10,000 hosts and 500 groups', async () => {
    const big = (await t.post('/api/v2/inventories/', { name: 'Big', organization: inv.organization })).body;
    await t.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO hosts (name, inventory_id, variables, enabled, has_active_failures)
         SELECT 'host' || lpad(i::text, 5, '0'), $1, 'n: ' || i, i % 10 <> 0, i % 100 = 0 FROM generate_series(1, 10000) AS i`,
        [big.id],
      );
      await tx.query(`INSERT INTO groups (name, inventory_id) SELECT 'group' || lpad(i::text, 3, '0'), $1 FROM generate_series(1, 500) AS i`, [big.id]);
      // Each group holds the previous one (a deep chain), and each host is in two groups.
      await tx.query(
        `INSERT INTO group_children (parent_id, child_id)
         SELECT p.id, c.id FROM groups p JOIN groups c ON c.inventory_id = p.inventory_id AND c.name = 'group' || lpad((substr(p.name, 6)::int - 1)::text, 3, '0')
         WHERE p.inventory_id = $1`,
        [big.id],
      );
      await tx.query(
        `INSERT INTO group_hosts (group_id, host_id)
         SELECT g.id, h.id FROM hosts h JOIN groups g ON g.inventory_id = h.inventory_id
           AND substr(g.name, 6)::int IN (substr(h.name, 5)::int % 500 + 1, (substr(h.name, 5)::int + 7) % 500 + 1)
         WHERE h.inventory_id = $1`,
        [big.id],
      );
      await refreshInventoryComputedFields(tx, t.services.resources, big.id);
    });
    const [row] = await t.db.query('SELECT total_hosts, hosts_with_active_failures, has_active_failures, total_groups FROM inventories WHERE id = $1', [big.id]);
    assert.deepEqual(row, { total_hosts: 10000, hosts_with_active_failures: 100, has_active_failures: true, total_groups: 500 });
    const data = await inventoryScript(t.db, big.id, { hostvars: true, towervars: false, all: false });
    assert.equal(Object.keys(data._meta as object).length, 1);
    assert.equal(Object.keys((data._meta as { hostvars: object }).hostvars).length, 9000);
    assert.equal(((data.all as { children: string[] }).children).length, 500);
    assert.deepEqual((data.all as { hosts: string[] }).hosts, []);
    assert.deepEqual((data.group002 as { children: string[] }).children, ['group001']);
    assert.deepEqual((data._meta as { hostvars: Record<string, unknown> }).hostvars.host00042, { n: 42 });
    const list = await t.get(`/api/v2/inventories/${big.id}/hosts/?page=400`);
    assert.deepEqual([list.status, list.body.count, list.body.results[0].name], [200, 10000, 'host09976']);
  });
});
