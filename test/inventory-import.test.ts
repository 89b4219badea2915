import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { importInventory, summaryLines, type ImportOptions } from '../src/inventory-import/import.ts';
import { hostEnabled, hostInstanceId, InventoryFormatError, parseInventory, type ParseOptions } from '../src/inventory-import/parse.ts';
import { readVariables, variablesText } from '../src/inventory-import/variables.ts';
import { applyLimit, LimitError } from '../src/inventory-import/limit.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const run = promisify(execFile);

const SITE = `
all:
  vars:
    ntp: pool.example.com
  hosts:
    lone:
      power: 'on'
  children:
    web:
      vars: {tier: web}
      hosts:
        web1: {ansible_host: 10.0.0.1, power: 'on'}
        web2: {power: 'off'}
      children:
        web_eu:
          hosts:
            web3: {power: 'on', cloud: {id: i-3}}
    db:
      hosts:
        db1: {port: 5432}
        web1:
`;

describe('inventory import', () => {
  let t: TestApp;
  let dir: string;
  let inventoryId: number;
  let sourceId: number;
  let otherSourceId: number;

  /** ansible-inventory --list --export on YAML text, as an inventory update runs it. */
  const ansibleInventory = async (yaml: string): Promise<string> => {
    const file = path.join(dir, `inv-${Math.random().toString(36).slice(2)}.yml`);
    await writeFile(file, yaml);
    const { stdout } = await run('ansible-inventory', ['-i', file, '--list', '--export'], {
      env: { ...process.env, ANSIBLE_INVENTORY_UNPARSED_FAILED: 'True' },
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  };
  const load = async (yaml: string, options: Partial<ImportOptions> = {}, parse: ParseOptions = {}) => {
    const parsed = parseInventory(await ansibleInventory(yaml), parse);
    return t.db.transaction((tx) =>
      importInventory(tx, parsed, { inventoryId, inventorySourceId: sourceId, overwrite: false, overwriteVars: false, ...options }),
    );
  };
  const hosts = async () =>
    Object.fromEntries(
      (await t.db.query<AnyRow>('SELECT id, name, variables, enabled, instance_id, description, has_inventory_sources FROM hosts WHERE inventory_id = $1', [inventoryId])).map(
        (h) => [h.name, { ...h, vars: readVariables(h.variables) }],
      ),
    );
  const groupNames = async () =>
    (await t.db.query<AnyRow>('SELECT name FROM groups WHERE inventory_id = $1 ORDER BY name', [inventoryId])).map((g) => g.name);
  const membersOf = async (group: string) =>
    (
      await t.db.query<AnyRow>(
        `SELECT h.name FROM group_hosts gh JOIN groups g ON g.id = gh.group_id JOIN hosts h ON h.id = gh.host_id
         WHERE g.inventory_id = $1 AND g.name = $2 ORDER BY h.name`,
        [inventoryId, group],
      )
    ).map((r) => r.name);
  const childrenOf = async (group: string) =>
    (
      await t.db.query<AnyRow>(
        `SELECT c.name FROM group_children gc JOIN groups p ON p.id = gc.parent_id JOIN groups c ON c.id = gc.child_id
         WHERE p.inventory_id = $1 AND p.name = $2 ORDER BY c.name`,
        [inventoryId, group],
      )
    ).map((r) => r.name);
  const linkedHosts = async (source: number) =>
    (await t.db.query<AnyRow>('SELECT h.name FROM host_inventory_sources s JOIN hosts h ON h.id = s.host_id WHERE s.inventory_source_id = $1 ORDER BY h.name', [source])).map(
      (r) => r.name,
    );

  before(async () => {
    t = await createTestApp();
    dir = await mkdtemp(path.join(tmpdir(), 'drover-import-'));
    const [org] = await t.db.query<AnyRow>(`SELECT id FROM organizations WHERE name = 'Default'`);
    [{ id: inventoryId }] = await t.db.query<AnyRow>(`INSERT INTO inventories (name, organization_id, variables) VALUES ('Imports', $1, 'owner: ops') RETURNING id`, [org.id]);
    [{ id: sourceId }] = await t.db.query<AnyRow>(`INSERT INTO inventory_sources (name, inventory_id, source) VALUES ('site', $1, 'scm') RETURNING id`, [inventoryId]);
    [{ id: otherSourceId }] = await t.db.query<AnyRow>(`INSERT INTO inventory_sources (name, inventory_id, source) VALUES ('other', $1, 'scm') RETURNING id`, [inventoryId]);
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('reading ansible-inventory output', () => {
    it('takes all and ungrouped as the inventory itself, keeps nested children and host variables', async () => {
      const parsed = parseInventory(await ansibleInventory(SITE));
      assert.deepEqual(parsed.vars, { ntp: 'pool.example.com' });
      assert.deepEqual([...parsed.hosts.keys()].sort(), ['db1', 'lone', 'web1', 'web2', 'web3']);
      assert.deepEqual(parsed.hosts.get('web3'), { power: 'on', cloud: { id: 'i-3' } });
      assert.deepEqual([...parsed.groups.keys()].sort(), ['db', 'web', 'web_eu']);
      assert.deepEqual(parsed.groups.get('web'), { vars: { tier: 'web' }, hosts: ['web1', 'web2'], children: ['web_eu'] });
      assert.deepEqual(parsed.groups.get('db')!.hosts, ['db1', 'web1']);
    });

    it('applies host_filter and drops groups left empty when asked', () => {
      const data = { _meta: { hostvars: {} }, all: { children: ['a', 'b', 'ungrouped'] }, a: { hosts: ['keep1', 'drop1'] }, b: { hosts: ['drop2'] }, c: { children: ['b'] } };
      const parsed = parseInventory(data, { hostFilter: 'keep', excludeEmptyGroups: true });
      assert.deepEqual([...parsed.hosts.keys()], ['keep1']);
      assert.deepEqual([...parsed.groups.keys()], ['a']);
      assert.deepEqual([...parseInventory(data, { hostFilter: 'keep' }).groups.keys()].sort(), ['a', 'b', 'c']);
      assert.throws(() => parseInventory(data, { hostFilter: '(' }), /Invalid host_filter/);
    });

    it('runs a host_filter in linear time and refuses what cannot be (back references, lookaround)', () => {
      // With a backtracking engine this pattern takes longer than the test's timeout on a 40-character name.
      const data = { _meta: { hostvars: {} }, all: { hosts: [`${'a'.repeat(40)}!`, 'aaa'] } };
      assert.deepEqual([...parseInventory(data, { hostFilter: '(a+)+$' }).hosts.keys()], ['aaa']);
      assert.throws(() => parseInventory(data, { hostFilter: '(a)\\1' }), /Invalid host_filter: back references/);
      assert.throws(() => parseInventory(data, { hostFilter: '(?=a)' }), /Invalid host_filter: back references, lookahead/);
    });

    it('accepts the old script format and refuses what is not an inventory', () => {
      const parsed = parseInventory({ web: ['w1', 'w2'], _meta: { hostvars: { w1: { a: 1 } } } });
      assert.deepEqual(parsed.groups.get('web')!.hosts, ['w1', 'w2']);
      assert.deepEqual(parsed.hosts.get('w1'), { a: 1 });
      assert.throws(() => parseInventory('not json'), InventoryFormatError);
      assert.throws(() => parseInventory('[1]'), /must be a JSON object/);
      assert.throws(() => parseInventory({ web: { hosts: 'w1' } }), /hosts of "web" must be a list/);
      assert.throws(() => parseInventory({ web: { vars: [1] } }), /vars of "web" must be a mapping/);
    });

    it('reads enabled and instance id variables as AWX does', () => {
      const vars = { state: { name: 'Running' }, up: 0, id: 17, flag: true };
      assert.equal(hostEnabled(vars, 'state.name', 'running'), true);
      assert.equal(hostEnabled(vars, 'state.name', 'stopped'), false);
      assert.equal(hostEnabled(vars, 'up', ''), false);
      assert.equal(hostEnabled(vars, 'flag', 'True'), true);
      assert.equal(hostEnabled(vars, 'missing', 'x'), null);
      assert.equal(hostEnabled(vars, 'missing,state.name', 'running'), true);
      assert.equal(hostEnabled(vars, '', ''), null);
      assert.equal(hostInstanceId(vars, 'id'), '17');
      assert.equal(hostInstanceId(vars, 'state'), '');
    });

    it('applies a limit as Ansible host patterns', async () => {
      const output = await ansibleInventory(SITE);
      const selected = (limit: string) => {
        const parsed = parseInventory(output);
        applyLimit(parsed, limit);
        return [...parsed.hosts.keys()].sort();
      };
      assert.deepEqual(selected('web'), ['web1', 'web2', 'web3'], 'a group brings its children\'s hosts');
      assert.deepEqual(selected('web:&db'), ['web1']);
      assert.deepEqual(selected('web,!web_eu'), ['web1', 'web2']);
      assert.deepEqual(selected('db*:lone'), ['db1', 'lone', 'web1']);
      assert.deepEqual(selected('~^web[12]$'), ['web1', 'web2']);
      assert.deepEqual(selected('ungrouped'), ['lone']);
      assert.deepEqual(selected('!web'), ['db1', 'lone']);
      const parsed = parseInventory(output);
      applyLimit(parsed, 'db');
      assert.deepEqual(parsed.groups.get('web')!.hosts, ['web1'], 'groups keep only the selected hosts');
      assert.throws(() => applyLimit(parseInventory(output), '~('), LimitError);
    });

    it('stores variables as JSON and reads JSON or YAML back', () => {
      assert.equal(variablesText({ a: 1, b: [true, 'x'] }), '{"a": 1, "b": [true, "x"]}');
      assert.equal(variablesText({}), '');
      assert.deepEqual(readVariables('a: 1\nb: two'), { a: 1, b: 'two' });
      assert.deepEqual(readVariables('- 1'), {});
      assert.deepEqual(readVariables(''), {});
    });
  });

  describe('importing', () => {
    let manualHostId: number;

    it('adopts a host made by hand instead of duplicating it', async () => {
      [{ id: manualHostId }] = await t.db.query<AnyRow>(
        `INSERT INTO hosts (name, inventory_id, variables, description) VALUES ('web2', $1, 'owner: alice', 'by hand') RETURNING id`,
        [inventoryId],
      );
      await t.db.query<AnyRow>(`INSERT INTO hosts (name, inventory_id) VALUES ('manual', $1)`, [inventoryId]);
      const summary = await load(SITE, { enabledVar: 'power', enabledValue: 'on' });
      assert.deepEqual(summary.hosts, { added: 4, updated: 1, unchanged: 0, removed: 0 });
      assert.deepEqual(summary.groups, { added: 3, updated: 0, unchanged: 0, removed: 0 });
      assert.deepEqual(summary.memberships, { hostsAdded: 5, hostsRemoved: 0, childrenAdded: 1, childrenRemoved: 0 });
      assert.equal(summary.inventoryVariablesUpdated, true);
      assert.match(summaryLines(summary).join('\n'), /Hosts: 4 added, 1 updated, 0 unchanged, 0 removed/);
      const h = await hosts();
      assert.deepEqual(Object.keys(h).sort(), ['db1', 'lone', 'manual', 'web1', 'web2', 'web3']);
      assert.equal(h.web2.id, manualHostId);
      assert.deepEqual(h.web2.vars, { owner: 'alice', power: 'off' });
      assert.equal(h.web2.description, 'by hand');
      assert.equal(h.web1.description, 'imported');
      assert.deepEqual(h.web1.vars, { ansible_host: '10.0.0.1', power: 'on' });
      assert.equal(h.web1.variables, '{"ansible_host": "10.0.0.1", "power": "on"}');
      assert.deepEqual([h.web1.enabled, h.web2.enabled, h.db1.enabled], [true, false, true]);
      assert.equal(h.web2.has_inventory_sources, true);
      assert.equal(h.manual.has_inventory_sources, false);
      assert.deepEqual(await linkedHosts(sourceId), ['db1', 'lone', 'web1', 'web2', 'web3']);
      assert.deepEqual(await groupNames(), ['db', 'web', 'web_eu']);
      assert.deepEqual(await membersOf('web'), ['web1', 'web2']);
      assert.deepEqual(await membersOf('db'), ['db1', 'web1']);
      assert.deepEqual(await childrenOf('web'), ['web_eu']);
      const [group] = await t.db.query<AnyRow>(`SELECT variables, description FROM groups WHERE inventory_id = $1 AND name = 'web'`, [inventoryId]);
      assert.deepEqual([readVariables(group.variables), group.description], [{ tier: 'web' }, 'imported']);
      const [inv] = await t.db.query<AnyRow>('SELECT variables FROM inventories WHERE id = $1', [inventoryId]);
      assert.deepEqual(readVariables(inv.variables), { owner: 'ops', ntp: 'pool.example.com' });
    });

    it('a second identical import changes nothing', async () => {
      const summary = await load(SITE, { enabledVar: 'power', enabledValue: 'on', overwrite: true });
      assert.deepEqual(summary.hosts, { added: 0, updated: 0, unchanged: 5, removed: 0 });
      assert.deepEqual(summary.groups, { added: 0, updated: 0, unchanged: 3, removed: 0 });
      assert.deepEqual(summary.memberships, { hostsAdded: 0, hostsRemoved: 0, childrenAdded: 0, childrenRemoved: 0 });
    });

    it('overwrite_vars false merges: the source wins on its keys, other keys stay', async () => {
      await t.db.query<AnyRow>(`UPDATE hosts SET variables = '{"power": "on", "note": "keep"}' WHERE inventory_id = $1 AND name = 'db1'`, [inventoryId]);
      await load(SITE.replace('{port: 5432}', '{port: 6432}'));
      assert.deepEqual((await hosts()).db1.vars, { power: 'on', note: 'keep', port: 6432 });
    });

    it('overwrite_vars true replaces variables with the source\'s', async () => {
      await load(SITE, { overwriteVars: true });
      const h = await hosts();
      assert.deepEqual(h.db1.vars, { port: 5432 });
      assert.deepEqual(h.web2.vars, { power: 'off' });
    });

    it('without enabled_var the enabled flag is left alone; without enabled_value the variable\'s truth decides', async () => {
      await t.db.query<AnyRow>(`UPDATE hosts SET enabled = false WHERE inventory_id = $1 AND name = 'web1'`, [inventoryId]);
      await load(SITE);
      assert.equal((await hosts()).web1.enabled, false);
      await load(SITE.replace("web1: {ansible_host: 10.0.0.1, power: 'on'}", 'web1: {ansible_host: 10.0.0.1, up: 1}'), { enabledVar: 'up' });
      const h = await hosts();
      assert.equal(h.web1.enabled, true);
      assert.equal(h.db1.enabled, true, 'hosts without the variable keep their state');
    });

    const SMALLER = `
all:
  children:
    web:
      hosts:
        web1:
    db:
      hosts:
        db1: {port: 5432}
`;

    it('overwrite false only adds: hosts, groups and links the source dropped stay', async () => {
      const summary = await load(SMALLER);
      assert.equal(summary.hosts.removed + summary.groups.removed + summary.memberships.hostsRemoved + summary.memberships.childrenRemoved, 0);
      assert.deepEqual(await groupNames(), ['db', 'web', 'web_eu']);
      assert.deepEqual(await membersOf('web'), ['web1', 'web2']);
      assert.deepEqual(await childrenOf('web'), ['web_eu']);
      assert.equal(Object.keys(await hosts()).length, 6);
    });

    it('overwrite true removes what the source brought and dropped, and only that', async () => {
      const [{ id: manualGroup }] = await t.db.query<AnyRow>(`INSERT INTO groups (name, inventory_id) VALUES ('handmade', $1) RETURNING id`, [inventoryId]);
      const [{ id: manualHost }] = await t.db.query<AnyRow>(`SELECT id FROM hosts WHERE inventory_id = $1 AND name = 'manual'`, [inventoryId]);
      const [{ id: web }] = await t.db.query<AnyRow>(`SELECT id FROM groups WHERE inventory_id = $1 AND name = 'web'`, [inventoryId]);
      const [{ id: db1 }] = await t.db.query<AnyRow>(`SELECT id FROM hosts WHERE inventory_id = $1 AND name = 'db1'`, [inventoryId]);
      await t.db.query<AnyRow>('INSERT INTO group_hosts (group_id, host_id) VALUES ($1, $2)', [web, manualHost]);
      await t.db.query<AnyRow>('INSERT INTO group_children (parent_id, child_id) VALUES ($1, $2)', [web, manualGroup]);
      await t.db.query<AnyRow>('INSERT INTO group_hosts (group_id, host_id) VALUES ($1, $2)', [manualGroup, db1]);
      // A host another source brought is not this source's to remove.
      const [{ id: foreign }] = await t.db.query<AnyRow>(`INSERT INTO hosts (name, inventory_id) VALUES ('foreign', $1) RETURNING id`, [inventoryId]);
      await t.db.query<AnyRow>('INSERT INTO host_inventory_sources (host_id, inventory_source_id) VALUES ($1, $2)', [foreign, otherSourceId]);

      const summary = await load(SMALLER, { overwrite: true });
      assert.equal(summary.hosts.removed, 3);
      assert.equal(summary.groups.removed, 1);
      assert.deepEqual(Object.keys(await hosts()).sort(), ['db1', 'foreign', 'manual', 'web1']);
      assert.deepEqual(await groupNames(), ['db', 'handmade', 'web']);
      assert.deepEqual(await membersOf('web'), ['manual', 'web1'], 'the hand-made member stays');
      assert.deepEqual(await membersOf('db'), ['db1'], 'web1 left db');
      assert.deepEqual(await childrenOf('web'), ['handmade'], 'a hand-made child stays');
      assert.deepEqual(await membersOf('handmade'), ['db1'], 'a hand-made group keeps its members');
      assert.deepEqual(await linkedHosts(sourceId), ['db1', 'web1']);
      assert.deepEqual(await linkedHosts(otherSourceId), ['foreign']);
      assert.equal(summary.memberships.hostsRemoved, 1);
    });

    it('overwrite true removes child links between the source\'s own groups', async () => {
      await load(SITE, { overwrite: true });
      assert.deepEqual(await childrenOf('web'), ['handmade', 'web_eu']);
      const moved = SITE.replace(/      children:\n        web_eu:\n          hosts:\n            web3: \{power: 'on', cloud: \{id: i-3\}\}\n/, '') +
        "    web_eu:\n      hosts:\n        web3:\n";
      const summary = await load(moved, { overwrite: true });
      assert.equal(summary.memberships.childrenRemoved, 1);
      assert.deepEqual(await childrenOf('web'), ['handmade']);
      assert.deepEqual(await membersOf('web_eu'), ['web3']);
    });

    it('recognizes a renamed host by its instance id', async () => {
      const before = (await hosts()).web3;
      const renamed = SITE.replace('web3:', 'web3-new:');
      const summary = await load(renamed, { overwrite: true, instanceIdVar: 'cloud.id' });
      const h = await hosts();
      assert.equal(h.web3, undefined);
      assert.equal(h['web3-new'].id, before.id);
      assert.equal(h['web3-new'].instance_id, 'i-3');
      assert.equal(summary.hosts.removed, 0);
      assert.deepEqual(await membersOf('web_eu'), ['web3-new']);
    });

    it('rolls everything back when the transaction fails', async () => {
      const before = await hosts();
      const parsed = parseInventory(await ansibleInventory('all:\n  hosts:\n    brand-new:\n'));
      await assert.rejects(
        t.db.transaction(async (tx) => {
          await importInventory(tx, parsed, { inventoryId, inventorySourceId: sourceId, overwrite: true, overwriteVars: false });
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.deepEqual(Object.keys(await hosts()).sort(), Object.keys(before).sort());
    });
  });
});
