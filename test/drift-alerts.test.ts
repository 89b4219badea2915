import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { eventually } from './helpers/jobs.ts';
import { saveFacts } from './helpers/drift.ts';
import { assertListHasNoAuthors } from './helpers/authors.ts';
import { startHttpPeer, type HttpPeer } from './helpers/notification-peers.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

describe('drift alert rules and alerts', () => {
  let t: TestApp;
  let peer: HttpPeer;
  let org: number;
  let inventory: number;
  let otherInventory: number;
  let hook: number;
  let brokenHook: number;
  let foreignHook: number;
  let orgAdmin: User;
  let auditor: User;
  let member: User;
  let otherAdmin: User;
  let serial = 0;

  const host = async (name: string, inv = inventory) => (await t.post('/api/v2/hosts/', { name, inventory: inv })).body.id as number;
  const rule = async (fields: Record<string, unknown>) => {
    const res = await t.post('/api/v2/drift_alert_rules/', { name: `rule-${++serial}`, organization: org, notification_template: hook, ...fields });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const alertsOf = async (ruleId: number) => (await t.get(`/api/v2/drift_alerts/?alert_rule=${ruleId}`)).body.results;
  /** Gives the host a baseline and then `changes` drift items (keys k0..kN-1 changed), as a job would. */
  const drifts = async (hostId: number, changes: number, prefix = 'custom') => {
    const [{ ansible_facts: current }] = await t.db.query<AnyRow>('SELECT ansible_facts FROM hosts WHERE id = $1', [hostId]);
    if (!Object.keys(current).length) await saveFacts(t, { [hostId]: { seed: 0 } });
    const [{ ansible_facts: now }] = await t.db.query<AnyRow>('SELECT ansible_facts FROM hosts WHERE id = $1', [hostId]);
    const next = { ...now };
    for (let i = 0; i < changes; i++) next[`${prefix}_${i}`] = `${Date.now()}-${Math.random()}`;
    await saveFacts(t, { [hostId]: next });
  };

  before(async () => {
    t = await createTestApp();
    peer = await startHttpPeer();
    peer.answers.set('/broken', { status: 500, body: 'down' });
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] })).status, 200);
    org = (await newOrg(t, { name: 'Alerting' })).id;
    const other = (await newOrg(t, { name: 'Other' })).id;
    inventory = (await t.post('/api/v2/inventories/', { name: 'Fleet', organization: org })).body.id;
    otherInventory = (await t.post('/api/v2/inventories/', { name: 'Theirs', organization: other })).body.id;
    const template = async (name: string, path: string, organization = org) =>
      (await t.post('/api/v2/notification_templates/', { name, organization, notification_type: 'webhook', notification_configuration: { url: `${peer.base}${path}`, headers: {} } })).body.id;
    hook = await template('drift hook', '/drift');
    brokenHook = await template('broken hook', '/broken');
    foreignHook = await template('their hook', '/theirs', other);
    orgAdmin = await newUser(t, { admin: org });
    auditor = await newUser(t, { auditor: org });
    member = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: other });
  });
  after(async () => {
    await t.close();
    await peer.close();
  });

  it('creates a rule with the documented defaults', async () => {
    const res = await t.post('/api/v2/drift_alert_rules/', { name: 'defaults', organization: org, notification_template: hook }, { as: orgAdmin });
    assert.equal(res.status, 201, res.text);
    const { enabled, severity_min, threshold_count, threshold_window_minutes, cooldown_minutes, categories, host_filter, inventory: inv, last_fired_at } = res.body;
    assert.deepEqual({ enabled, severity_min, threshold_count, threshold_window_minutes, cooldown_minutes, categories, host_filter, inv, last_fired_at },
      { enabled: true, severity_min: 'medium', threshold_count: 1, threshold_window_minutes: 60, cooldown_minutes: 30, categories: [], host_filter: '', inv: null, last_fired_at: null });
    assert.equal((await t.post('/api/v2/drift_alert_rules/', { name: 'defaults', organization: org, notification_template: hook })).status, 400, 'names are unique per organization');
    await t.post(`/api/v2/drift_alert_rules/${res.body.id}/disable/`, {});
  });

  it('refuses bad values with a message on the field, creating nothing', async () => {
    const before = (await t.get('/api/v2/drift_alert_rules/')).body.count;
    const cases: [Record<string, unknown>, string][] = [
      [{ categories: ['packages', 'bogus'] }, 'categories'],
      [{ categories: 'packages' }, 'categories'],
      [{ severity_min: 'extreme' }, 'severity_min'],
      [{ threshold_count: 0 }, 'threshold_count'],
      [{ threshold_window_minutes: -5 }, 'threshold_window_minutes'],
      [{ cooldown_minutes: 'soon' }, 'cooldown_minutes'],
      [{ inventory: otherInventory }, 'inventory'],
      [{ notification_template: foreignHook }, 'notification_template'],
      [{ notification_template: undefined }, 'notification_template'],
      [{ name: '' }, 'name'],
    ];
    for (const [fields, field] of cases) {
      const res = await t.post('/api/v2/drift_alert_rules/', { name: `bad-${++serial}`, organization: org, notification_template: hook, ...fields });
      assert.equal(res.status, 400, `${JSON.stringify(fields)}: ${res.text}`);
      assert.ok(res.body[field], `${JSON.stringify(fields)} names ${field}: ${res.text}`);
    }
    assert.equal((await t.get('/api/v2/drift_alert_rules/')).body.count, before);
  });

  it('lets organization admins manage rules, auditors read them, and nobody else', async () => {
    const r = await rule({ enabled: false });
    assert.equal((await t.post('/api/v2/drift_alert_rules/', { name: 'by member', organization: org, notification_template: hook }, { as: member })).status, 403);
    assert.equal((await t.post('/api/v2/drift_alert_rules/', { name: 'by outsider', organization: org, notification_template: hook }, { as: otherAdmin })).status, 403);
    assert.equal((await t.get('/api/v2/drift_alert_rules/', { as: member })).body.count, 0);
    assert.equal((await t.get('/api/v2/drift_alert_rules/', { as: otherAdmin })).body.count, 0);
    assert.equal((await t.get(`/api/v2/drift_alert_rules/${r.id}/`, { as: otherAdmin })).status, 403);
    assert.equal((await t.get(`/api/v2/drift_alert_rules/${r.id}/`, { as: auditor })).status, 200);
    assert.equal((await t.patch(`/api/v2/drift_alert_rules/${r.id}/`, { threshold_count: 9 }, { as: auditor })).status, 403);
    assert.equal((await t.post(`/api/v2/drift_alert_rules/${r.id}/enable/`, {}, { as: auditor })).status, 403);
    assert.equal((await t.post(`/api/v2/drift_alert_rules/${r.id}/enable/`, {}, { as: otherAdmin })).status, 403);
    assert.equal((await t.patch(`/api/v2/drift_alert_rules/${r.id}/`, { organization: (await newOrg(t)).id }, { as: orgAdmin })).status, 403, 'moving needs admin of both');
    assert.equal((await t.get(`/api/v2/drift_alert_rules/${r.id}/`)).body.threshold_count, 1, 'refusals change nothing');
    const enabled = await t.post(`/api/v2/drift_alert_rules/${r.id}/enable/`, {}, { as: orgAdmin });
    assert.equal(enabled.status, 200);
    assert.equal(enabled.body.enabled, true);
    assert.equal((await t.post(`/api/v2/drift_alert_rules/${r.id}/disable/`, {}, { as: orgAdmin })).body.enabled, false);
    const activity = (await t.get(`/api/v2/activity_stream/?object1=drift_alert_rule`)).body.results;
    assert.ok(activity.some((a: any) => a.changes?.enabled), 'enable and disable are in the activity stream');
    assert.equal((await t.delete(`/api/v2/drift_alert_rules/${r.id}/`, { as: otherAdmin })).status, 403);
    assert.equal((await t.delete(`/api/v2/drift_alert_rules/${r.id}/`, { as: orgAdmin })).status, 204);
  });

  it('fires when a host reaches the threshold, sends the notification and records it as sent', async () => {
    const h = await host('alpha');
    const r = await rule({ threshold_count: 3, severity_min: 'low', host_filter: 'alpha' });
    await drifts(h, 2);
    assert.equal((await alertsOf(r.id)).length, 0, 'two items do not reach three');
    await drifts(h, 1, 'more');
    const [alert] = await alertsOf(r.id);
    assert.ok(alert, 'the third item fires the rule');
    assert.equal(alert.host, h);
    assert.equal(alert.drift_count, 3);
    assert.match(alert.summary, /3 drift items on alpha within 60 minutes/);
    const sent = await eventually(async () => {
      const a = (await t.get(`/api/v2/drift_alerts/${alert.id}/`)).body;
      return a.notification_status !== 'pending' && a;
    }, 30_000, 'notification settled');
    assert.equal(sent.notification_status, 'sent', sent.notification_error);
    const delivered = peer.received.filter((m) => m.url === '/drift');
    const body = JSON.parse(delivered[delivered.length - 1].body);
    assert.deepEqual([body.rule, body.host, body.drift_count, body.id], [r.name, 'alpha', 3, alert.id]);
    assert.ok((await t.get(`/api/v2/drift_alert_rules/${r.id}/`)).body.last_fired_at);
  });

  it('keeps quiet within the cooldown and fires again after it', async () => {
    const h = await host('beta');
    const r = await rule({ host_filter: 'beta', severity_min: 'low', cooldown_minutes: 30 });
    await drifts(h, 1);
    assert.equal((await alertsOf(r.id)).length, 1);
    await drifts(h, 1, 'again');
    assert.equal((await alertsOf(r.id)).length, 1, 'inside the cooldown');
    await t.db.query<AnyRow>(`UPDATE drift_alert_rules SET last_fired_at = now() - interval '31 minutes' WHERE id = $1`, [r.id]);
    await drifts(h, 1, 'later');
    assert.equal((await alertsOf(r.id)).length, 2, 'after the cooldown');
  });

  it('counts only drift inside the window, unacknowledged, at or above severity_min, in its categories', async () => {
    const h = await host('gamma');
    const r = await rule({ host_filter: 'gamma', threshold_count: 2, threshold_window_minutes: 10, severity_min: 'medium', categories: ['packages'] });
    await drifts(h, 1, 'app'); // other/low: below severity_min and not a package
    await drifts(h, 1, 'pip'); // packages/medium: counts
    assert.equal((await alertsOf(r.id)).length, 0);
    await t.db.query<AnyRow>(`UPDATE drift_detections SET created = now() - interval '11 minutes' WHERE host_id = $1`, [h]);
    await drifts(h, 1, 'package');
    assert.equal((await alertsOf(r.id)).length, 0, 'the older package drift is outside the window');
    const [latest] = (await t.get(`/api/v2/drift_detections/?host=${h}&fact_path__startswith=package`)).body.results;
    assert.equal((await t.post(`/api/v2/drift_detections/${latest.id}/acknowledge/`, {})).status, 200);
    await drifts(h, 1, 'pip_more');
    assert.equal((await alertsOf(r.id)).length, 0, 'acknowledged drift is not counted');
    await drifts(h, 1, 'packages_extra');
    assert.equal((await alertsOf(r.id)).length, 1);
  });

  it('honours the inventory and the host filter, and ignores disabled rules', async () => {
    const second = (await t.post('/api/v2/inventories/', { name: 'Second', organization: org })).body.id;
    const inSecond = await host('web-7', second);
    const byInventory = await rule({ inventory: inventory, host_filter: 'web-*', severity_min: 'low' });
    const byPattern = await rule({ host_filter: 'web-[0-9]', severity_min: 'low' });
    const disabled = await rule({ host_filter: 'web-*', severity_min: 'low', enabled: false });
    await drifts(inSecond, 1);
    assert.equal((await alertsOf(byInventory.id)).length, 0, 'another inventory');
    assert.equal((await alertsOf(byPattern.id)).length, 1);
    assert.equal((await alertsOf(disabled.id)).length, 0);
  });

  it('matches a host filter built to make a matcher backtrack without hanging the capture', async () => {
    const h = await host('a'.repeat(400));
    const hostile = await rule({ host_filter: `${'*a'.repeat(40)}*b`, severity_min: 'low' });
    const matching = await rule({ host_filter: `${'*a'.repeat(40)}*`, severity_min: 'low' });
    await drifts(h, 1);
    assert.equal((await alertsOf(hostile.id)).length, 0);
    assert.equal((await alertsOf(matching.id)).length, 1);
  });

  it('records a failed notification with its error', async () => {
    const h = await host('delta');
    const r = await rule({ host_filter: 'delta', severity_min: 'low', notification_template: brokenHook });
    await drifts(h, 1);
    const [alert] = await alertsOf(r.id);
    const failed = await eventually(async () => {
      const a = (await t.get(`/api/v2/drift_alerts/${alert.id}/`)).body;
      return a.notification_status !== 'pending' && a;
    }, 60_000, 'notification settled');
    assert.equal(failed.notification_status, 'failed');
    assert.match(failed.notification_error, /500/);
    assert.equal((await t.get('/api/v2/drift_alerts/?notification_status=failed')).body.results.some((a: any) => a.id === alert.id), true);
  });

  it('shows alerts to the organization admins and auditors only, and never lets them change', async () => {
    const [one] = (await t.get('/api/v2/drift_alerts/')).body.results;
    assert.ok(one);
    assert.equal((await t.get('/api/v2/drift_alerts/', { as: auditor })).body.count > 0, true);
    assert.equal((await t.get('/api/v2/drift_alerts/', { as: member })).body.count, 0);
    assert.equal((await t.get('/api/v2/drift_alerts/', { as: otherAdmin })).body.count, 0);
    assert.equal((await t.get(`/api/v2/drift_alerts/${one.id}/`, { as: otherAdmin })).status, 403);
    assert.equal((await t.patch(`/api/v2/drift_alerts/${one.id}/`, { drift_count: 0 })).status, 405);
    assert.equal((await t.delete(`/api/v2/drift_alerts/${one.id}/`)).status, 405);
  });

  it('alerts are raised by the system: no created_by or modified_by, their own created kept', async () => {
    await assertListHasNoAuthors(t, '/api/v2/drift_alerts/');
    const [one] = (await t.get('/api/v2/drift_alerts/')).body.results;
    assert.ok(one.created);
    assert.equal('modified' in one, false);
  });
});
