import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { grant, newOrg, newUser, type User } from './helpers/factories.ts';
import { baseFacts, saveFacts } from './helpers/drift.ts';
import { assertListHasNoAuthors, assertNoAuthor } from './helpers/authors.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

describe('drift detection', () => {
  let t: TestApp;
  let org: number;
  let inventory: number;
  let web1: number;
  let web2: number;
  let reader: User;
  let invAdmin: User;
  let outsider: User;
  let otherAdmin: User;

  const host = async (name: string, inv = inventory) => (await t.post('/api/v2/hosts/', { name, inventory: inv })).body.id as number;
  const drift = async (query: string, as?: User) => (await t.get(`/api/v2/drift_detections/?${query}`, as ? { as } : {})).body;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t, { name: 'Drift' })).id;
    inventory = (await t.post('/api/v2/inventories/', { name: 'Fleet', organization: org })).body.id;
    web1 = await host('web1');
    web2 = await host('web2');
    reader = await newUser(t, { member: org });
    await grant(t, reader, `/api/v2/inventories/${inventory}/`, 'read_role');
    invAdmin = await newUser(t, { member: org });
    await grant(t, invAdmin, `/api/v2/inventories/${inventory}/`, 'admin_role');
    outsider = await newUser(t, { member: org });
    const other = (await newOrg(t, { name: 'Elsewhere' })).id;
    otherAdmin = await newUser(t, { admin: other });
  });
  after(() => t.close());

  it('takes a baseline snapshot without drift, and no snapshot when the facts are unchanged', async () => {
    const facts = baseFacts();
    await saveFacts(t, { [web1]: facts, [web2]: baseFacts() });
    const snapshots = (await t.get(`/api/v2/fact_snapshots/?host=${web1}`)).body;
    assert.equal(snapshots.count, 1);
    assert.match(snapshots.results[0].facts_hash, /^[0-9a-f]{64}$/);
    assert.equal(snapshots.results[0].facts, undefined, 'lists leave the facts out');
    const detail = (await t.get(`/api/v2/fact_snapshots/${snapshots.results[0].id}/`)).body;
    assert.deepEqual(detail.facts, facts);
    assert.equal((await drift(`host=${web1}`)).count, 0, 'a first snapshot is a baseline');
    await saveFacts(t, { [web1]: facts });
    assert.equal((await t.get(`/api/v2/fact_snapshots/?host=${web1}`)).body.count, 1, 'same facts, same hash: no snapshot');
  });

  it('ignores volatile facts: a new snapshot, no drift', async () => {
    const before = (await t.get(`/api/v2/fact_snapshots/?host=${web1}`)).body.count;
    const [{ ansible_facts: current }] = await t.db.query<AnyRow>('SELECT ansible_facts FROM hosts WHERE id = $1', [web1]);
    await saveFacts(t, { [web1]: { ...current, ansible_date_time: { epoch: 'later' }, ansible_uptime_seconds: 1, ansible_local: { x: 1 }, gather_subset: ['all'], module_setup: true, ansible_fibre_channel_wwn: ['x'] } });
    assert.equal((await t.get(`/api/v2/fact_snapshots/?host=${web1}`)).body.count, before + 1);
    assert.equal((await drift(`host=${web1}`)).count, 0);
  });

  it('takes no snapshot of empty facts, whether the host has a snapshot or not', async () => {
    const bare = await host('bare');
    await saveFacts(t, { [bare]: {} });
    assert.equal((await t.get(`/api/v2/fact_snapshots/?host=${bare}`)).body.count, 0, 'no facts, no baseline');
    const cleared = await host('cleared');
    await saveFacts(t, { [cleared]: baseFacts() });
    await saveFacts(t, { [cleared]: {} });
    assert.equal((await t.get(`/api/v2/fact_snapshots/?host=${cleared}`)).body.count, 1, 'cleared facts are not a change');
    assert.equal((await drift(`host=${cleared}`)).count, 0);
  });

  it('records one detection per changed top-level fact with category, severity, diff type and summary', async () => {
    const [{ ansible_facts: current }] = await t.db.query<AnyRow>('SELECT ansible_facts FROM hosts WHERE id = $1', [web2]);
    const changed = { ...current };
    changed.ansible_kernel = '6.1.0-2';
    changed.ansible_packages = { openssl: [{ version: '3.0.2' }], nginx: [{ version: '1.22' }] };
    changed.ansible_all_ipv4_addresses = ['10.0.0.5', '10.0.0.6', '10.0.0.7'];
    delete changed.app_version;
    changed.ansible_user_shell = '/bin/zsh';
    await saveFacts(t, { [web2]: changed });
    const listed = await drift(`host=${web2}&order_by=fact_path`);
    const list = listed.results;
    assert.ok(list, JSON.stringify(listed));
    const byPath = Object.fromEntries(list.map((d: any) => [d.fact_path, d]));
    assert.deepEqual(Object.keys(byPath).sort(), ['ansible_all_ipv4_addresses', 'ansible_kernel', 'ansible_packages', 'ansible_user_shell', 'app_version']);
    assert.deepEqual(
      [byPath.ansible_kernel.category, byPath.ansible_kernel.severity, byPath.ansible_kernel.diff_type, byPath.ansible_kernel.summary],
      ['kernel', 'critical', 'changed', '6.1.0-1 -> 6.1.0-2'],
    );
    assert.deepEqual([byPath.ansible_packages.category, byPath.ansible_packages.severity, byPath.ansible_packages.summary], ['packages', 'medium', '+1 keys, -1 keys, ~1 keys']);
    assert.deepEqual([byPath.ansible_all_ipv4_addresses.category, byPath.ansible_all_ipv4_addresses.severity, byPath.ansible_all_ipv4_addresses.summary], ['network', 'high', '+2, -0 items']);
    assert.deepEqual([byPath.app_version.category, byPath.app_version.severity, byPath.app_version.diff_type, byPath.app_version.summary], ['other', 'low', 'removed', '1.0 -> None']);
    assert.deepEqual([byPath.ansible_user_shell.category, byPath.ansible_user_shell.diff_type], ['users_groups', 'added']);
    const kernel = (await t.get(`/api/v2/drift_detections/${byPath.ansible_kernel.id}/`)).body;
    assert.deepEqual(kernel.detail, { before: '6.1.0-1', after: '6.1.0-2', diff_type: 'changed' });
    const snapshots = (await t.get(`/api/v2/fact_snapshots/?host=${web2}&order_by=captured_at`)).body.results;
    assert.equal(kernel.snapshot_before, snapshots[0].id);
    assert.equal(kernel.snapshot_after, snapshots[1].id);
    assert.equal(kernel.acknowledged, false);
    assert.equal(kernel.summary_fields.host.name, 'web2');
    // /hosts/{id}/drift/ lists the same.
    assert.equal((await t.get(`/api/v2/hosts/${web2}/drift/`)).body.count, 5);
    assert.ok((await t.get(`/api/v2/hosts/${web2}/`)).body.related.drift);
  });

  it('fact snapshots and drift detections are made by the system: no created_by or modified_by', async () => {
    await assertListHasNoAuthors(t, '/api/v2/fact_snapshots/');
    await assertListHasNoAuthors(t, '/api/v2/drift_detections/');
    // Their own timestamps stay: captured_at, and created (Detected at) with no modified.
    const [snapshot] = (await t.get('/api/v2/fact_snapshots/')).body.results;
    assert.ok(snapshot.captured_at);
    assert.equal('created' in snapshot || 'modified' in snapshot, false);
    const [detection] = (await t.get('/api/v2/drift_detections/')).body.results;
    assert.ok(detection.created);
    assert.equal('modified' in detection, false);
    const options = (await t.request('OPTIONS', '/api/v2/drift_detections/')).body.actions.GET;
    assert.equal(options.created.label, 'Detected at');
  });

  it('classifies every pattern of the category table', async () => {
    const cases: Record<string, [string, string]> = {
      ansible_packages: ['packages', 'medium'], ansible_pkg_mgr: ['packages', 'medium'], package_list: ['packages', 'medium'], pip_freeze: ['packages', 'medium'],
      ansible_services: ['services', 'medium'], ansible_service_mgr: ['services', 'medium'], systemd_units: ['services', 'medium'],
      ansible_user_id: ['users_groups', 'high'], local_users: ['users_groups', 'high'], groups_of_admins: ['users_groups', 'high'], passwd_entries: ['users_groups', 'high'],
      ansible_all_ipv4_addresses: ['network', 'high'], ansible_all_ipv6_addresses: ['network', 'high'], ansible_interfaces: ['network', 'high'], tcp_listen: ['network', 'high'], open_ports: ['network', 'high'],
      ansible_mounts: ['mounts', 'medium'], ansible_devices: ['mounts', 'medium'], disk_usage: ['mounts', 'medium'], lvm_volumes: ['mounts', 'medium'],
      ansible_kernel: ['kernel', 'critical'], ansible_kernel_version: ['kernel', 'critical'], ansible_sysctl: ['kernel', 'critical'], ansible_selinux: ['kernel', 'critical'],
      ansible_hostname: ['other', 'low'], etc_passwd_hash: ['other', 'low'],
    };
    const id = await host('patterns');
    await saveFacts(t, { [id]: Object.fromEntries(Object.keys(cases).map((k) => [k, 'a'])) });
    await saveFacts(t, { [id]: Object.fromEntries(Object.keys(cases).map((k) => [k, 'b'])) });
    const results = (await drift(`host=${id}&page_size=100`)).results;
    assert.equal(results.length, Object.keys(cases).length);
    for (const d of results) assert.deepEqual([d.category, d.severity], cases[d.fact_path], d.fact_path);
  });

  it('keeps a large value whole in the snapshot and cuts it in the detail with a marker', async () => {
    const id = await host('big');
    const big = Array.from({ length: 3000 }, (_, i) => `package-${i}`);
    await saveFacts(t, { [id]: { pip_packages: big } });
    await saveFacts(t, { [id]: { pip_packages: [...big, 'one-more'] } });
    const [d] = (await drift(`host=${id}`)).results;
    assert.equal(d.summary, '+1, -0 items');
    assert.equal(d.detail.truncated, true);
    assert.match(d.detail.after, /\[truncated\]$/);
    const after = (await t.get(`/api/v2/fact_snapshots/${d.snapshot_after}/`)).body;
    assert.equal(after.facts.pip_packages.length, 3001);
  });

  it('filters the list by category, severity, acknowledged, host and inventory', async () => {
    assert.ok((await drift('category=kernel')).results.every((d: any) => d.category === 'kernel'));
    assert.ok((await drift('severity=critical')).count >= 1);
    assert.equal((await drift(`inventory=${inventory}&acknowledged=true`)).count, 0);
    assert.equal((await drift('category=nonsense')).count, 0);
  });

  it('shows drift to readers of the inventory only', async () => {
    const total = (await drift(`inventory=${inventory}`)).count;
    assert.ok(total > 0);
    assert.equal((await drift(`inventory=${inventory}`, reader)).count, total);
    assert.equal((await drift('', outsider)).count, 0, 'an organization member without the inventory sees none');
    assert.equal((await drift('', otherAdmin)).count, 0, "another organization's admin sees none");
    assert.equal((await t.get('/api/v2/fact_snapshots/', { as: otherAdmin })).body.count, 0);
    const one = (await drift(`host=${web2}`)).results[0];
    assert.equal((await t.get(`/api/v2/drift_detections/${one.id}/`, { as: otherAdmin })).status, 403);
    assert.equal((await t.get(`/api/v2/hosts/${web2}/drift/`, { as: otherAdmin })).status, 403);
  });

  it('acknowledges with the inventory admin role only, recording who and when', async () => {
    const one = (await drift(`host=${web2}&fact_path=ansible_kernel`)).results[0];
    assert.equal(one.summary_fields.user_capabilities.acknowledge, true);
    assert.equal((await drift(`host=${web2}&fact_path=ansible_kernel`, reader)).results[0].summary_fields.user_capabilities.acknowledge, false);
    assert.equal((await t.post(`/api/v2/drift_detections/${one.id}/acknowledge/`, {}, { as: reader })).status, 403);
    assert.equal((await t.post(`/api/v2/drift_detections/${one.id}/acknowledge/`, {}, { as: otherAdmin })).status, 403);
    assert.equal((await t.get(`/api/v2/drift_detections/${one.id}/`)).body.acknowledged, false, 'refusals change nothing');
    const res = await t.post(`/api/v2/drift_detections/${one.id}/acknowledge/`, {}, { as: invAdmin });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.acknowledged, true);
    assert.equal(res.body.acknowledged_by, invAdmin.id);
    assert.ok(res.body.acknowledged_at);
    const again = await t.post(`/api/v2/drift_detections/${one.id}/acknowledge/`, {});
    assert.equal(again.status, 200);
    assert.equal(again.body.acknowledged_by, invAdmin.id, 'acknowledging twice keeps the first reviewer');
    // The reviewer changed the record, which the system made.
    const reviewed = (await t.get(`/api/v2/drift_detections/${one.id}/`)).body;
    assert.equal(reviewed.related.modified_by, `/api/v2/users/${invAdmin.id}/`);
    assert.equal(reviewed.summary_fields.modified_by.username, invAdmin.username);
    assert.equal(reviewed.related.created_by, undefined);
    assert.equal(reviewed.summary_fields.created_by, undefined);
    assert.equal((await drift(`modified_by=${invAdmin.id}`)).count, 1);
    assertNoAuthor((await t.get(`/api/v2/fact_snapshots/${reviewed.snapshot_after}/`)).body);
    assert.equal((await drift(`inventory=${inventory}&acknowledged=true`)).count, 1);
  });

  it('compares two snapshots', async () => {
    const [a, b] = (await t.get(`/api/v2/fact_snapshots/?host=${web2}&order_by=captured_at`)).body.results;
    const res = await t.post('/api/v2/drift_detections/compare/', { snapshot_a: a.id, snapshot_b: b.id });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.snapshot_a, a.id);
    assert.equal(res.body.diff_count, 5);
    assert.deepEqual(Object.keys(res.body.diffs[0]).sort(), ['category', 'detail', 'fact_path', 'severity', 'summary']);
    assert.equal((await t.post('/api/v2/drift_detections/compare/', { snapshot_a: a.id })).status, 400);
    assert.equal((await t.post('/api/v2/drift_detections/compare/', { snapshot_a: a.id, snapshot_b: 'x; DROP TABLE hosts' })).status, 400);
    assert.equal((await t.post('/api/v2/drift_detections/compare/', { snapshot_a: a.id, snapshot_b: 999999 })).status, 404);
    assert.equal((await t.post('/api/v2/drift_detections/compare/', { snapshot_a: a.id, snapshot_b: b.id }, { as: otherAdmin })).status, 404, "another organization's snapshots are not found");
    assert.equal((await t.post('/api/v2/drift_detections/compare/', { snapshot_a: a.id, snapshot_b: b.id }, { as: reader })).status, 200);
  });

  it('exports CSV with the exact header, Yes/No and the date range', async () => {
    const res = await t.get(`/api/v2/drift_detections/export/?inventory=${inventory}`);
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="drift_detections\.csv"$/);
    const lines = res.text.split('\r\n');
    assert.equal(lines[0], 'ID,Host,Detected At,Category,Severity,Fact Path,Summary,Diff Type,Acknowledged');
    assert.ok(lines.some((l) => /^\d+,web2,[^,]+,kernel,critical,ansible_kernel,6\.1\.0-1 -> 6\.1\.0-2,changed,Yes$/.test(l)), res.text);
    assert.ok(lines.some((l) => l.endsWith(',No')));
    const today = new Date().toISOString().slice(0, 10);
    assert.ok((await t.get(`/api/v2/drift_detections/export/?date_from=${today}&date_to=${today}`)).text.split('\r\n').length > 2);
    assert.equal((await t.get('/api/v2/drift_detections/export/?date_to=2000-01-01')).text, 'ID,Host,Detected At,Category,Severity,Fact Path,Summary,Diff Type,Acknowledged\r\n');
    for (const bad of ['2024-13-01', 'yesterday', "2024-01-01' OR 1=1"]) {
      const refused = await t.get(`/api/v2/drift_detections/export/?date_from=${encodeURIComponent(bad)}`);
      assert.equal(refused.status, 400, bad);
      assert.match(refused.body.detail, /date_from/);
    }
    assert.equal((await t.get('/api/v2/drift_detections/export/', { as: otherAdmin })).text.split('\r\n').filter(Boolean).length, 1, 'only the header for someone who sees nothing');
  });

  it('quotes fact names a spreadsheet would run as formulas', async () => {
    const id = await host('formula');
    await saveFacts(t, { [id]: { '=cmd|calc': 1 } });
    await saveFacts(t, { [id]: { '=cmd|calc': 2 } });
    const csv = (await t.get(`/api/v2/drift_detections/export/?host=${id}`)).text;
    assert.match(csv, /,'=cmd\|calc,/);
  });

  it('summarizes all drift the caller may see, or that of the last ?days= days', async () => {
    // One detection older than any window: counted without a period, left out of the last 7 days.
    const all = await drift(`inventory=${inventory}`);
    const [old] = (await drift(`host=${web2}&fact_path=ansible_user_shell`)).results;
    await t.db.query(`UPDATE drift_detections SET created = now() - interval '400 days' WHERE id = $1`, [old.id]);
    const res = await t.get(`/api/v2/drift_detections/summary/?inventory=${inventory}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.days, null);
    assert.equal(res.body.total, all.count);
    const sumOf = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
    assert.equal(sumOf(res.body.by_category), all.count);
    assert.equal(sumOf(res.body.by_severity), all.count);
    assert.equal(res.body.by_category.users_groups >= 1, true);
    const week = (await t.get(`/api/v2/drift_detections/summary/?inventory=${inventory}&days=7`)).body;
    assert.equal(week.days, 7);
    assert.equal(week.total, all.count - 1);
    assert.equal(week.by_category.users_groups, res.body.by_category.users_groups - 1);
    assert.equal(sumOf(week.by_severity), all.count - 1);
    const longer = (await t.get(`/api/v2/drift_detections/summary/?inventory=${inventory}&days=500`)).body;
    assert.equal(longer.total, all.count);
    assert.equal((await t.get(`/api/v2/drift_detections/summary/?inventory=${inventory}&days=`)).body.total, all.count, 'an empty days asks for no period');
    assert.equal((await t.get('/api/v2/drift_detections/summary/?days=3650')).body.total, (await t.get('/api/v2/drift_detections/summary/')).body.total);
    assert.equal((await t.get('/api/v2/drift_detections/summary/', { as: reader })).body.total, (await drift('', reader)).count);
    assert.equal((await t.get('/api/v2/drift_detections/summary/', { as: outsider })).body.total, 0);
    assert.equal(res.body.unacknowledged, all.count - 1);
    assert.equal(res.body.by_category.kernel >= 1, true);
    assert.deepEqual(Object.keys(res.body.by_severity), ['low', 'medium', 'high', 'critical']);
    assert.ok(res.body.total_hosts_with_drift >= 2);
    assert.equal((await t.get('/api/v2/drift_detections/summary/', { as: otherAdmin })).body.total, 0);
    assert.equal((await t.get('/api/v2/drift_detections/summary/?days=0')).status, 400);
    for (const bad of ['abc', '-1', '1.5', '999999', "7' OR 1=1"]) {
      const refused = await t.get(`/api/v2/drift_detections/summary/?days=${encodeURIComponent(bad)}`);
      assert.equal(refused.status, 400, bad);
      assert.match(refused.body.detail, /days must be a whole number/);
    }
    await t.db.query(`UPDATE drift_detections SET created = now() WHERE id = $1`, [old.id]);
  });

  it('refuses writes to snapshots and detections', async () => {
    const one = (await drift('')).results[0];
    assert.equal((await t.post('/api/v2/drift_detections/', { host: web1 })).status, 405);
    assert.equal((await t.patch(`/api/v2/drift_detections/${one.id}/`, { acknowledged: true })).status, 405);
    assert.equal((await t.delete(`/api/v2/fact_snapshots/${one.snapshot_after}/`)).status, 405);
  });
});
