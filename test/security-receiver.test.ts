import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createTestApp, grant, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { postEvent, sendEvent, signatureHeaders } from './helpers/eda.ts';
import { PER_ADDRESS, PER_RULE } from '../src/eda/refusal-throttle.ts';
import { TIMESTAMP_TOLERANCE_SECONDS } from '../src/eda/sources.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** X-Svc-Timestamp and the signature of `<timestamp>.<body>`. */
function timestamped(key: string, body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  return { 'x-svc-timestamp': String(timestamp), 'x-svc-signature': `sha256=${createHmac('sha256', key).update(`${timestamp}.${body}`).digest('hex')}` };
}

describe('event receiver: replays, timestamps and floods', () => {
  let t: TestApp;
  let org: number;
  let notification: number;
  let member: User;
  let adminB: User;
  let serial = 0;

  const makeRule = async (source = 'webhook_generic') => {
    const path = `replay-${source.replace(/_/g, '-')}-${++serial}`;
    const res = await t.post('/api/v2/event_rules/', {
      name: path, organization: org, source_type: source, webhook_path: path, conditions: [],
      actions: [{ action_type: 'send_notification', target_id: notification }],
    });
    assert.equal(res.status, 201, res.text);
    const key = (await t.get(`/api/v2/event_rules/${res.body.id}/webhook_key/`)).body.webhook_key as string;
    return { id: res.body.id as number, path, key };
  };
  /** The rule's logs of accepted deliveries (whatever their evaluation made of them), or of refused ones. */
  const logs = async (ruleId: number, kind: 'accepted' | 'signature_failed' = 'accepted') =>
    (await t.db.query<AnyRow>(`SELECT count(*)::int AS n FROM event_logs WHERE event_rule_id = $1 AND status ${kind === 'accepted' ? '<>' : '='} 'signature_failed'`, [ruleId]))[0].n as number;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t)).id;
    notification = (await t.post('/api/v2/notification_templates/', {
      name: 'replay hook', organization: org, notification_type: 'webhook', notification_configuration: { url: 'http://127.0.0.1:9/none', headers: {} },
    })).body.id;
    member = await newUser(t);
    await grant(t, member, `/api/v2/organizations/${org}/`, 'member_role');
    const orgB = (await newOrg(t)).id;
    adminB = await newUser(t);
    await grant(t, adminB, `/api/v2/organizations/${orgB}/`, 'admin_role');
  });
  after(() => t.close());

  it('refuses a copy of a signed delivery whose unsigned event id was changed, with 409, and stores nothing', async () => {
    const rule = await makeRule();
    const body = JSON.stringify({ kind: 'deploy', target: 'prod' });
    const headers = signatureHeaders('webhook_generic', rule.key, body);
    const first = await postEvent(t, rule.path, body, { ...headers, 'x-request-id': 'delivery-1' });
    assert.equal(first.status, 202, first.text);
    assert.ok(first.body.event_log_id);
    const changes: Array<Record<string, string>> = [{ 'x-request-id': 'delivery-2' }, { 'x-request-id': 'delivery-3', 'x-svc-event': 'other' }, {}];
    for (const changed of changes) {
      const copy = await postEvent(t, rule.path, body, { ...headers, ...changed });
      assert.equal(copy.status, 409, copy.text);
      assert.match(copy.body.detail, /already accepted/);
    }
    // The same delivery sent again (same id) is a repeat, as senders retry: 202 as before.
    const retry = await postEvent(t, rule.path, body, { ...headers, 'x-request-id': 'delivery-1' });
    assert.deepEqual([retry.status, retry.body], [202, { detail: 'Event previously received.' }]);
    assert.equal(await logs(rule.id), 1);
  });

  it('refuses a copy of a code host A delivery with another delivery id, or stripped to its SHA-1 signature', async () => {
    const rule = await makeRule('webhook_codehost_a');
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const both = { ...signatureHeaders('webhook_codehost_a', rule.key, body), ...signatureHeaders('webhook_codehost_a', rule.key, body, 'sha1') };
    assert.equal((await postEvent(t, rule.path, body, { ...both, 'x-codehosta-delivery': 'a-1' })).status, 202);
    const renamed = await postEvent(t, rule.path, body, { ...both, 'x-codehosta-delivery': 'a-2' });
    assert.equal(renamed.status, 409, renamed.text);
    const sha1Only = await postEvent(t, rule.path, body, { ...signatureHeaders('webhook_codehost_a', rule.key, body, 'sha1'), 'x-codehosta-delivery': 'a-3' });
    assert.equal(sha1Only.status, 409, sha1Only.text);
    assert.equal(await logs(rule.id), 1);
  });

  it('accepts a signed timestamp within the tolerance, and refuses a tampered, stale, future, malformed or stripped one', async () => {
    const rule = await makeRule('monitoring_alerts');
    const body = JSON.stringify({ severity: 'critical' });
    const now = Math.floor(Date.now() / 1000);
    const ok = await postEvent(t, rule.path, body, timestamped(rule.key, body, now));
    assert.equal(ok.status, 202, ok.text);
    // A new timestamp makes a new delivery of the same body.
    assert.equal((await postEvent(t, rule.path, body, { ...timestamped(rule.key, body, now - 1), 'x-request-id': 'second' })).status, 202);
    const forbidden = { detail: 'You do not have permission to perform this action.' };
    const signed = timestamped(rule.key, body, now);
    const tampered = await postEvent(t, rule.path, body, { ...signed, 'x-svc-timestamp': String(now + 1), 'x-request-id': 'tampered' });
    assert.deepEqual([tampered.status, tampered.body], [403, forbidden]);
    const stripped = await postEvent(t, rule.path, body, { 'x-svc-signature': signed['x-svc-signature'], 'x-request-id': 'stripped' });
    assert.deepEqual([stripped.status, stripped.body], [403, forbidden]);
    const malformed = await postEvent(t, rule.path, body, { ...signed, 'x-svc-timestamp': `${now}.0` });
    assert.equal(malformed.status, 403);
    for (const at of [now - TIMESTAMP_TOLERANCE_SECONDS - 30, now + TIMESTAMP_TOLERANCE_SECONDS + 30]) {
      const stale = await postEvent(t, rule.path, body, { ...timestamped(rule.key, body, at), 'x-request-id': `at-${at}` });
      assert.equal(stale.status, 403, stale.text);
      assert.match(stale.body.detail, /X-Svc-Timestamp is more than 300 seconds/);
    }
    assert.equal(await logs(rule.id), 2);
    assert.equal(await logs(rule.id, 'signature_failed'), 5);
  });

  it('refuses a replayed timestamped delivery within the window', async () => {
    const rule = await makeRule();
    const body = JSON.stringify({ kind: 'once' });
    const headers = timestamped(rule.key, body);
    assert.equal((await postEvent(t, rule.path, body, { ...headers, 'x-request-id': 'r-1' })).status, 202);
    const again = await Promise.all(['r-2', 'r-3', 'r-4'].map((id) => postEvent(t, rule.path, body, { ...headers, 'x-request-id': id })));
    assert.deepEqual(again.map((r) => r.status), [409, 409, 409]);
    assert.equal(await logs(rule.id), 1);
  });

  it('gives a plain member and another organization\'s admin no way to read a rule\'s key or its logs', async () => {
    const rule = await makeRule();
    for (const who of [member, adminB]) {
      assert.ok([403, 404].includes((await t.get(`/api/v2/event_rules/${rule.id}/webhook_key/`, { as: who })).status));
      const seen = await t.get(`/api/v2/event_logs/?event_rule=${rule.id}`, { as: who });
      assert.equal(seen.body.count ?? 0, 0);
      // Their own session does not sign deliveries: the receiver reads no login.
      const res = await t.request('POST', `/api/v2/eda_webhooks/${rule.path}/`, { as: who, payload: '{"kind":"x"}', headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 403);
    }
  });

  it('refuses nested JSON 400 before storing it, signed or not', async () => {
    const rule = await makeRule();
    const deep = `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const signed = await sendEvent(t, rule.path, rule.key, deep);
    assert.equal(signed.status, 400, signed.text);
    assert.match(signed.body.detail, /nested deeper than 64 levels/);
    assert.equal(await logs(rule.id), 0);
    // A refused one is kept as its first 64 KiB of text, never parsed.
    const unsigned = await postEvent(t, rule.path, deep.slice(0, 60_000), { 'x-svc-signature': 'sha256=00' });
    assert.equal(unsigned.status, 403);
    const [log] = await t.db.query<AnyRow>("SELECT payload FROM event_logs WHERE event_rule_id = $1 AND status = 'signature_failed'", [rule.id]);
    assert.equal(typeof log.payload.raw, 'string');
  });

  it('keeps at most PER_RULE refused deliveries a minute for a rule, then answers 429 with Retry-After and stores nothing', async () => {
    const rule = await makeRule();
    const body = JSON.stringify({ kind: 'flood', blob: 'x'.repeat(100 * 1024) });
    const answers = await Promise.all(Array.from({ length: PER_RULE + 15 }, () => postEvent(t, rule.path, body)));
    const statuses = answers.map((a) => a.status);
    assert.equal(statuses.filter((s) => s === 403).length, PER_RULE, statuses.join(','));
    assert.equal(statuses.filter((s) => s === 429).length, 15);
    const throttled = answers.find((a) => a.status === 429)!;
    const retryAfter = Number(throttled.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
    assert.match(throttled.body.detail, /Too many deliveries with a missing or wrong signature\. Try again in \d+ seconds\./);
    assert.equal(await logs(rule.id, 'signature_failed'), PER_RULE);
    // Each kept refusal holds at most 64 KiB of the body.
    const [{ longest }] = await t.db.query<AnyRow>("SELECT max(length(payload->>'raw'))::int AS longest FROM event_logs WHERE event_rule_id = $1", [rule.id]);
    assert.equal(longest, 64 * 1024);
    // A signed delivery still gets through while the rule is throttled for refusals.
    assert.equal((await sendEvent(t, rule.path, rule.key, { kind: 'real' })).status, 202);
  });

  it('keeps at most PER_ADDRESS refused deliveries a minute from one address across rules', async () => {
    const rules = await Promise.all(Array.from({ length: Math.ceil(PER_ADDRESS / PER_RULE) + 1 }, () => makeRule()));
    const before = (await t.db.query<AnyRow>("SELECT count(*)::int AS n FROM event_logs WHERE status = 'signature_failed' AND source_ip = '127.0.0.1' AND created > now() - interval '60 seconds'"))[0].n;
    const statuses: number[] = [];
    for (const rule of rules) {
      for (let i = 0; i < PER_RULE; i++) statuses.push((await postEvent(t, rule.path, { kind: 'spray', i })).status);
    }
    assert.equal(statuses.filter((s) => s === 403).length, Math.max(0, PER_ADDRESS - before));
    assert.ok(statuses.includes(429));
    const after = (await t.db.query<AnyRow>("SELECT count(*)::int AS n FROM event_logs WHERE status = 'signature_failed' AND source_ip = '127.0.0.1' AND created > now() - interval '60 seconds'"))[0].n;
    assert.equal(after, PER_ADDRESS);
  });
});
