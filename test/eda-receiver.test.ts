import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg } from './helpers/factories.ts';
import { eventually } from './helpers/jobs.ts';
import { postEvent, sendEvent, signatureHeaders } from './helpers/eda.ts';
import { assertListHasNoAuthors } from './helpers/authors.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const SOURCES = ['webhook_generic', 'webhook_codehost_a', 'webhook_codehost_b', 'monitoring_alerts', 'incident_mgmt', 'metrics_saas', 'cloud_monitoring'];

describe('event receiver', () => {
  let t: TestApp;
  let org: number;
  let notification: number;
  let serial = 0;
  const rules = new Map<string, { id: number; path: string; key: string }>();

  const makeRule = async (source: string, fields: Record<string, unknown> = {}) => {
    const path = `hook-${source.replace(/_/g, '-')}-${++serial}`;
    const res = await t.post('/api/v2/event_rules/', {
      name: path, organization: org, source_type: source, webhook_path: path,
      conditions: [{ jinja2_expression: 'event.kind == "deploy"', description: 'deploys only' }],
      actions: [{ action_type: 'send_notification', target_id: notification }],
      ...fields,
    });
    assert.equal(res.status, 201, res.text);
    const key = (await t.get(`/api/v2/event_rules/${res.body.id}/webhook_key/`)).body.webhook_key as string;
    return { id: res.body.id as number, path, key, body: res.body };
  };
  const logsOf = async (ruleId: number, extra = '') => (await t.db.query<AnyRow>(`SELECT * FROM event_logs WHERE event_rule_id = $1 ${extra} ORDER BY id`, [ruleId]));
  const evaluated = (id: number) => eventually(async () => {
    const [log] = await t.db.query<AnyRow>('SELECT * FROM event_logs WHERE id = $1', [id]);
    return log.status !== 'received' ? log : null;
  }, 20_000, `event log ${id} evaluated`);

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t)).id;
    notification = (await t.post('/api/v2/notification_templates/', {
      name: 'eda hook', organization: org, notification_type: 'webhook', notification_configuration: { url: 'http://127.0.0.1:9/none', headers: {} },
    })).body.id;
    for (const source of SOURCES) rules.set(source, await makeRule(source));
  });
  after(() => t.close());

  for (const source of SOURCES) {
    it(`accepts a ${source} delivery signed with the key, and refuses wrong, missing, other-body and truncated signatures`, async () => {
      const rule = rules.get(source)!;
      const payload = { kind: 'deploy', note: source, event_id: `ev-${source}` };
      const ok = await sendEvent(t, rule.path, rule.key, payload, { source });
      assert.equal(ok.status, 202, ok.text);
      assert.equal(typeof ok.body.event_log_id, 'number');
      const body = JSON.stringify({ kind: 'deploy', n: 2 });
      const refused = [
        signatureHeaders(source, 'not-the-key', body),
        {},
        // A token does not depend on the body: code host B has no signature over another body to refuse.
        ...(source === 'webhook_codehost_b' ? [] : [signatureHeaders(source, rule.key, JSON.stringify({ kind: 'other body' }))]),
        Object.fromEntries(Object.entries(signatureHeaders(source, rule.key, body)).map(([k, v]) => [k, v.slice(0, -2)])),
        { 'x-svc-signature': `sha256=${createHmac('sha256', rule.key).update(body).digest('hex')}`, 'x-codehostb-token': 'guess' },
      ].filter((h) => !(source !== 'webhook_codehost_a' && source !== 'webhook_codehost_b' && 'x-codehostb-token' in h));
      for (const headers of refused) {
        const res = await postEvent(t, rule.path, body, headers);
        assert.equal(res.status, 403, `${source} ${JSON.stringify(headers)}: ${res.text}`);
        assert.deepEqual(res.body, { detail: 'You do not have permission to perform this action.' });
      }
      const failed = await logsOf(rule.id, "AND status = 'signature_failed'");
      assert.equal(failed.length, refused.length);
      assert.deepEqual(failed[0].payload, { kind: 'deploy', n: 2 });
      const log = await evaluated(ok.body.event_log_id);
      // Code host A names its deliveries in a header of its own; without it the body's digest is the id.
      assert.equal(log.event_guid, source === 'webhook_codehost_a' ? createHash('sha256').update(JSON.stringify(payload)).digest('hex') : `ev-${source}`);
    });
  }

  it('accepts code host A deliveries signed with SHA-1 and takes their id and event type from its headers', async () => {
    const rule = rules.get('webhook_codehost_a')!;
    const body = JSON.stringify({ kind: 'deploy' });
    const res = await postEvent(t, rule.path, body, { ...signatureHeaders('webhook_codehost_a', rule.key, body, 'sha1'), 'x-codehosta-delivery': 'd-123', 'x-codehosta-event': 'push' });
    assert.equal(res.status, 202, res.text);
    const [log] = await t.db.query<AnyRow>('SELECT event_guid, event_type, headers FROM event_logs WHERE id = $1', [res.body.event_log_id]);
    assert.equal(log.event_guid, 'd-123');
    assert.equal(log.event_type, 'push');
    assert.equal(log.headers['x-codehosta-event'], 'push');
    assert.equal(log.headers['x-codehosta-signature'], undefined, 'signatures are not kept');
  });

  it('never keeps the code host B token, which is the key itself', async () => {
    const rule = rules.get('webhook_codehost_b')!;
    const res = await sendEvent(t, rule.path, rule.key, { kind: 'x', event_id: 'b-token' }, { source: 'webhook_codehost_b' });
    assert.equal(res.status, 202);
    const [log] = await t.db.query<AnyRow>('SELECT headers::text AS h, payload::text AS p FROM event_logs WHERE id = $1', [res.body.event_log_id]);
    assert.ok(!log.h.includes(rule.key) && !log.p.includes(rule.key));
  });

  it('answers unknown paths and disabled rules 403 with the body of a bad signature, and stores nothing', async () => {
    const rule = await makeRule('webhook_generic');
    const before = (await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM event_logs'))[0].n;
    const unknown = await sendEvent(t, 'no-such-path', rule.key, { kind: 'deploy' });
    assert.equal(unknown.status, 403);
    assert.equal((await t.post(`/api/v2/event_rules/${rule.id}/disable/`)).status, 200);
    const disabled = await sendEvent(t, rule.path, rule.key, { kind: 'deploy' });
    assert.equal(disabled.status, 403);
    assert.deepEqual(disabled.body, unknown.body);
    assert.equal((await t.db.query<AnyRow>('SELECT count(*)::int AS n FROM event_logs'))[0].n, before);
    assert.equal((await t.post(`/api/v2/event_rules/${rule.id}/enable/`)).status, 200);
    assert.equal((await sendEvent(t, rule.path, rule.key, { kind: 'deploy' })).status, 202);
  });

  it('refuses a body over 1 MiB with 413 and stores nothing', async () => {
    const rule = rules.get('webhook_generic')!;
    const big = JSON.stringify({ kind: 'deploy', blob: 'x'.repeat(1024 * 1024) });
    const before = (await logsOf(rule.id)).length;
    const res = await sendEvent(t, rule.path, rule.key, big);
    assert.equal(res.status, 413);
    assert.match(res.body.detail, /too large/);
    assert.equal((await logsOf(rule.id)).length, before);
    const justUnder = JSON.stringify({ kind: 'deploy', blob: 'x'.repeat(1024 * 1024 - 40) });
    assert.ok(Buffer.byteLength(justUnder) <= 1024 * 1024);
    assert.equal((await sendEvent(t, rule.path, rule.key, justUnder)).status, 202);
  });

  it('answers a body that is not a JSON object 400', async () => {
    const rule = rules.get('webhook_generic')!;
    for (const body of ['not json', '[1,2]', '"text"']) {
      const res = await sendEvent(t, rule.path, rule.key, body);
      assert.equal(res.status, 400, body);
      assert.ok(res.body.detail);
    }
  });

  it('evaluates 20 concurrent deliveries of one event once', async () => {
    const rule = await makeRule('webhook_generic');
    const body = JSON.stringify({ kind: 'deploy', event_id: 'same-event' });
    const answers = await Promise.all(Array.from({ length: 20 }, () => postEvent(t, rule.path, body, signatureHeaders('webhook_generic', rule.key, body))));
    assert.deepEqual(answers.map((a) => a.status), Array(20).fill(202));
    const accepted = answers.filter((a) => a.body.event_log_id);
    assert.equal(accepted.length, 1);
    for (const a of answers.filter((a) => !a.body.event_log_id)) assert.deepEqual(a.body, { detail: 'Event previously received.' });
    const log = await evaluated(accepted[0].body.event_log_id);
    assert.equal(log.status, 'action_fired');
    assert.equal((await logsOf(rule.id)).length, 1);
    const [{ fire_count }] = await t.db.query<AnyRow>('SELECT fire_count FROM event_rules WHERE id = $1', [rule.id]);
    assert.equal(fire_count, 1);
    assert.equal((await t.db.query<AnyRow>("SELECT count(*)::int AS n FROM notifications WHERE event = 'event_rule' AND extra_context->'eda_event'->>'event_guid' = 'same-event'"))[0].n, 1);
    // The same event later is still a repeat; a forged delivery with the id does not use it up.
    const forged = await postEvent(t, rule.path, JSON.stringify({ kind: 'deploy', event_id: 'forged-first' }), { 'x-svc-signature': 'sha256=00' });
    assert.equal(forged.status, 403);
    const real = await sendEvent(t, rule.path, rule.key, { kind: 'deploy', event_id: 'forged-first' });
    assert.equal(real.status, 202);
    assert.ok(real.body.event_log_id);
    assert.deepEqual((await sendEvent(t, rule.path, rule.key, { kind: 'deploy', event_id: 'same-event' })).body, { detail: 'Event previously received.' });
  });

  it('keeps an event whose payload holds NUL characters, each replaced (jsonb cannot hold them)', async () => {
    const rule = rules.get('webhook_generic')!;
    const res = await sendEvent(t, rule.path, rule.key, { kind: 'a\u0000b', 'k\u0000ey': ['x\u0000'], plain: 'no nul here' });
    assert.equal(res.status, 202, res.text);
    const [{ payload }] = await t.db.query<AnyRow>('SELECT payload FROM event_logs WHERE id = $1', [res.body.event_log_id]);
    assert.deepEqual(payload, { kind: 'a\uFFFDb', 'k\uFFFDey': ['x\uFFFD'], plain: 'no nul here' });
    // A refused delivery keeps its body too.
    const forged = await postEvent(t, rule.path, JSON.stringify({ kind: 'forged\u0000' }), { 'x-svc-signature': 'sha256=00' });
    assert.equal(forged.status, 403);
    const [refused] = await t.db.query<AnyRow>("SELECT payload FROM event_logs WHERE status = 'signature_failed' AND payload->>'kind' LIKE 'forged%'");
    assert.deepEqual(refused.payload, { kind: 'forged\uFFFD' });
  });

  it('takes the event id from X-Request-Id, then event_id, then the body digest', async () => {
    const rule = rules.get('monitoring_alerts')!;
    const withHeader = await sendEvent(t, rule.path, rule.key, { kind: 'a', event_id: 'payload-id' }, { source: 'monitoring_alerts', headers: { 'x-request-id': 'header-id' } });
    const body = JSON.stringify({ kind: 'digest me' });
    const digest = await sendEvent(t, rule.path, rule.key, body, { source: 'monitoring_alerts' });
    const guids = await t.db.query<AnyRow>('SELECT id, event_guid, event_type FROM event_logs WHERE id = ANY($1::bigint[]) ORDER BY id', [[withHeader.body.event_log_id, digest.body.event_log_id]]);
    assert.equal(guids[0].event_guid, 'header-id');
    assert.equal(guids[1].event_guid, createHash('sha256').update(body).digest('hex'));
    assert.equal(guids[1].event_type, 'alert');
  });

  it('event logs are written by the receiver: no created_by or modified_by, their own created kept', async () => {
    const rule = rules.get('webhook_generic')!;
    const res = await sendEvent(t, rule.path, rule.key, { kind: 'deploy', event_id: 'authorless' });
    assert.equal(res.status, 202, res.text);
    await evaluated(res.body.event_log_id);
    await assertListHasNoAuthors(t, '/api/v2/event_logs/');
    const log = (await t.get(`/api/v2/event_logs/${res.body.event_log_id}/`)).body;
    assert.ok(log.created);
    assert.equal('modified' in log, false);
  });
});
