// Outbound webhooks: the resource (fields, validation, secrets, access), deliveries of real job and
// workflow status changes to a loopback receiver that checks their signature, retries, the SSRF guard,
// the test endpoint, the delivery history and its retention.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, firstProjectUpdate, waitForRun } from './helpers/jobs.ts';
import { answer, finished, launchWorkflow, makeWorkflow } from './helpers/workflows.ts';
import { signatureValid, startWebhookReceiver, type Delivered, type WebhookReceiver } from './helpers/webhook-receiver.ts';
import { configureOutboundWebhookRetry, pruneDeliveries } from '../src/notifications/outbound-webhook-sender.ts';
import { codeBlocks } from './helpers/docs.ts';
import { selfSignedCert, startHttpPeer } from './helpers/notification-peers.ts';

const KEY = 'a-shared-signing-key-0123456789';
const FAST_RETRIES = [100, 100, 100, 100];

describe('outbound webhooks', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let org: number;
  let otherOrg: number;
  let orgAdmin: User;
  let auditor: User;
  let member: User;
  let otherAdmin: User;
  let systemAuditor: User;
  let serial = 0;

  const allowLoopback = async (allowed: boolean) =>
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: allowed ? ['127.0.0.1'] : [] })).status, 200);
  const webhook = async (fields: Record<string, unknown>, as?: User) => {
    const res = await t.post('/api/v2/outbound_webhooks/', { name: `hook-${++serial}`, organization: org, url: `${receiver.base}/hook-${serial}`, webhook_key: KEY, events: ['workflow.started'], ...fields }, { as });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const deliveriesOf = async (id: number, as?: User) => {
    const res = await t.get(`/api/v2/outbound_webhooks/${id}/deliveries/`, { as });
    assert.equal(res.status, 200, res.text);
    return res.body.results as any[];
  };
  const settled = (id: number, count: number): Promise<any[]> =>
    eventually(async () => {
      const list = await deliveriesOf(id);
      return list.length === count && list.every((d) => d.status !== 'pending') ? list : null;
    }, 30_000, `${count} deliveries of webhook ${id} settled`) as Promise<any[]>;
  const receivedAt = (path: string, count: number) =>
    eventually(async () => (receiver.at(path).length >= count ? receiver.at(path) : null), 30_000, `${count} deliveries at ${path}`) as Promise<Delivered[]>;
  const pathOf = (hook: { url: string }) => new URL(hook.url).pathname;

  before(async () => {
    configureOutboundWebhookRetry({ delaysMs: FAST_RETRIES });
    t = await createTestApp();
    receiver = await startWebhookReceiver();
    await allowLoopback(true);
    org = (await newOrg(t, { name: 'Hooked' })).id;
    otherOrg = (await newOrg(t, { name: 'Elsewhere' })).id;
    orgAdmin = await newUser(t, { admin: org });
    auditor = await newUser(t, { auditor: org });
    member = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: otherOrg });
    systemAuditor = await newUser(t, { is_system_auditor: true });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('creates a webhook with the documented defaults, and OPTIONS offers the events as choices', async () => {
    const res = await t.post('/api/v2/outbound_webhooks/', { name: 'defaults', organization: org, url: 'https://hooks.example.com/drover', events: ['job.failed'] }, { as: orgAdmin });
    assert.equal(res.status, 201, res.text);
    const { enabled, ssl_verify, custom_headers, last_status, last_sent_at, last_error, description } = res.body;
    assert.deepEqual({ enabled, ssl_verify, custom_headers, last_status, last_sent_at, last_error, description },
      { enabled: true, ssl_verify: true, custom_headers: {}, last_status: null, last_sent_at: null, last_error: '', description: '' });
    assert.equal(res.body.related.test, `/api/v2/outbound_webhooks/${res.body.id}/test/`);
    assert.equal(res.body.related.deliveries, `/api/v2/outbound_webhooks/${res.body.id}/deliveries/`);
    assert.equal((await t.post('/api/v2/outbound_webhooks/', { name: 'defaults', organization: org, url: 'https://hooks.example.com/', events: ['job.failed'] })).status, 400, 'names are unique per organization');
    assert.equal((await t.post('/api/v2/outbound_webhooks/', { name: 'defaults', organization: otherOrg, url: 'https://hooks.example.com/', events: ['job.failed'] })).status, 201, 'another organization may use the name');

    const options = (await t.request('OPTIONS', '/api/v2/outbound_webhooks/', { as: orgAdmin })).body;
    assert.deepEqual(options.actions.POST.events.choices.map(([value]: [string]) => value),
      ['job.started', 'job.succeeded', 'job.failed', 'job.canceled', 'workflow.started', 'workflow.succeeded', 'workflow.failed']);
    assert.equal(options.actions.POST.events.required, true);
    assert.ok(options.actions.POST.webhook_key, 'the key can be given');
    assert.equal(options.actions.POST.last_status, undefined, 'last_status is read-only');
    assert.ok(options.actions.GET.last_status);
  });

  it('never answers the signing key: a generated one is shown once, in its create response', async () => {
    const generated = await t.post('/api/v2/outbound_webhooks/', { name: 'generated key', organization: org, url: `${receiver.base}/generated`, events: ['workflow.started'] });
    assert.equal(generated.status, 201, generated.text);
    const key = generated.body.webhook_key;
    assert.match(key, /^[A-Za-z0-9_-]{40,}$/, 'a generated key is shown in the create response');
    assert.equal((await t.get(`/api/v2/outbound_webhooks/${generated.body.id}/`)).body.webhook_key, '$encrypted$');

    const given = await webhook({ name: 'given key' });
    assert.equal(given.webhook_key, '$encrypted$', 'a key given is never repeated back');
    const [stored] = await t.db.query<{ webhook_key: string }>('SELECT webhook_key FROM outbound_webhooks WHERE id = $1', [given.id]);
    assert.match(stored.webhook_key, /^\$encrypted\$AESGCM\$1\$/);
    assert.ok(!stored.webhook_key.includes(KEY), 'encrypted at rest');
    for (const as of [undefined, auditor, systemAuditor]) {
      const list = await t.get('/api/v2/outbound_webhooks/?page_size=200', { as });
      assert.ok(!list.text.includes(KEY) && !list.text.includes(key), 'no list shows a key');
      assert.ok(list.body.results.every((w: any) => w.webhook_key === '$encrypted$'));
      assert.equal((await t.get(`/api/v2/outbound_webhooks/${given.id}/`, { as })).body.webhook_key, '$encrypted$');
    }
    const kept = await t.patch(`/api/v2/outbound_webhooks/${given.id}/`, { webhook_key: '$encrypted$', description: 'kept key' });
    assert.equal(kept.status, 200, kept.text);
    const put = await t.put(`/api/v2/outbound_webhooks/${given.id}/`, { ...kept.body, description: 'replaced' });
    assert.equal(put.status, 200, put.text);
    const [after] = await t.db.query('SELECT webhook_key FROM outbound_webhooks WHERE id = $1', [given.id]);
    assert.equal(after.webhook_key, stored.webhook_key, '$encrypted$ keeps the stored key');
    assert.equal((await t.patch(`/api/v2/outbound_webhooks/${given.id}/`, { webhook_key: 'rotated-key' })).status, 200);
    const activity = await t.get(`/api/v2/activity_stream/?object1=outbound_webhook&page_size=200`);
    assert.ok(!activity.text.includes(KEY) && !activity.text.includes('rotated-key') && !activity.text.includes(key), 'the activity stream hides keys');
    assert.ok(activity.body.results.some((a: any) => a.changes?.webhook_key === 'hidden' || (Array.isArray(a.changes?.webhook_key) && a.changes.webhook_key.every((v: string) => v === 'hidden'))));

    // The receiver can check what a generated key signs.
    const sent = await t.post(`/api/v2/outbound_webhooks/${generated.body.id}/test/`, {});
    assert.equal(sent.body.ok, true, sent.text);
    const [delivered] = receiver.at('/generated');
    assert.ok(signatureValid(delivered, key));
    assert.ok(!signatureValid(delivered, KEY));
  });

  it('refuses bad URLs, events and headers with a message on the field, storing nothing', async () => {
    const before = (await t.get('/api/v2/outbound_webhooks/')).body.count;
    const cases: [Record<string, unknown>, string][] = [
      [{ url: 'ftp://example.com/hook' }, 'url'],
      [{ url: 'file:///etc/passwd' }, 'url'],
      [{ url: 'javascript:alert(1)' }, 'url'],
      [{ url: 'gopher://127.0.0.1:6379/_FLUSHALL' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: 'http://' }, 'url'],
      [{ url: 'https://user:secret@example.com/' }, 'url'],
      [{ url: '' }, 'url'],
      [{ url: 42 }, 'url'],
      [{ url: `https://example.com/${'a'.repeat(1100)}` }, 'url'],
      [{ url: undefined }, 'url'],
      [{ events: [] }, 'events'],
      [{ events: 'job.started' }, 'events'],
      [{ events: ['job.exploded'] }, 'events'],
      [{ events: ['workflow.canceled'] }, 'events'],
      [{ events: ['job.started', 'job.started'] }, 'events'],
      [{ events: [1] }, 'events'],
      [{ events: undefined }, 'events'],
      [{ custom_headers: { 'Content-Type': 'text/plain' } }, 'custom_headers'],
      [{ custom_headers: { 'content-length': '1' } }, 'custom_headers'],
      [{ custom_headers: { Host: 'internal' } }, 'custom_headers'],
      [{ custom_headers: { 'X-Svc-Signature': 'sha256=forged' } }, 'custom_headers'],
      [{ custom_headers: { 'Transfer-Encoding': 'chunked' } }, 'custom_headers'],
      [{ custom_headers: { 'X-Split': 'a\r\nInjected: yes' } }, 'custom_headers'],
      [{ custom_headers: { 'X-Split': 'a\nb' } }, 'custom_headers'],
      [{ custom_headers: { 'X-Nul': 'a\u0000b' } }, 'custom_headers'],
      [{ custom_headers: { 'X-Bad\r\nName': 'x' } }, 'custom_headers'],
      [{ custom_headers: { 'Bad Name': 'x' } }, 'custom_headers'],
      [{ custom_headers: { '': 'x' } }, 'custom_headers'],
      [{ custom_headers: { 'X-Number': 5 } }, 'custom_headers'],
      [{ custom_headers: { 'X-Team': 'a', 'x-team': 'b' } }, 'custom_headers'],
      [{ custom_headers: ['X-Team: a'] }, 'custom_headers'],
      [{ custom_headers: 'X-Team: [unclosed' }, 'custom_headers'],
      [{ custom_headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])) }, 'custom_headers'],
      [{ custom_headers: { 'X-Big': 'v'.repeat(5000) } }, 'custom_headers'],
      [{ name: '' }, 'name'],
      [{ organization: undefined }, 'organization'],
      [{ organization: 999_999 }, 'organization'],
      [{ webhook_key: '$encrypted$' }, 'webhook_key'],
    ];
    for (const [fields, field] of cases) {
      const res = await t.post('/api/v2/outbound_webhooks/', { name: `bad-${++serial}`, organization: org, url: 'https://example.com/', events: ['job.started'], ...fields });
      assert.equal(res.status, 400, `${JSON.stringify(fields)}: ${res.text}`);
      assert.ok(Array.isArray(res.body[field]) && typeof res.body[field][0] === 'string', `${JSON.stringify(fields)} names ${field}: ${res.text}`);
    }
    assert.equal((await t.get('/api/v2/outbound_webhooks/')).body.count, before);

    const hook = await webhook({ custom_headers: { 'X-Team': 'ops' } });
    for (const [fields, field] of [
      [{ url: 'ftp://example.com/' }, 'url'], [{ events: [] }, 'events'], [{ custom_headers: { Host: 'x' } }, 'custom_headers'], [{ webhook_key: '' }, 'webhook_key'],
    ] as const) {
      const res = await t.patch(`/api/v2/outbound_webhooks/${hook.id}/`, fields);
      assert.equal(res.status, 400, `${JSON.stringify(fields)}: ${res.text}`);
      assert.ok(res.body[field], res.text);
    }
    const unchanged = (await t.get(`/api/v2/outbound_webhooks/${hook.id}/`)).body;
    assert.equal(unchanged.url, hook.url);
    assert.deepEqual(unchanged.events, ['workflow.started']);
    assert.deepEqual(unchanged.custom_headers, { 'X-Team': 'ops' });
    const [key] = await t.db.query<{ webhook_key: string }>('SELECT webhook_key FROM outbound_webhooks WHERE id = $1', [hook.id]);
    assert.ok(key.webhook_key.startsWith('$encrypted$AESGCM'), 'the key stays');

    // The console sends the headers as typed, in JSON or YAML.
    const typed = await t.patch(`/api/v2/outbound_webhooks/${hook.id}/`, { custom_headers: 'X-Team: platform\nAuthorization: Bearer abc\n' });
    assert.equal(typed.status, 200, typed.text);
    assert.deepEqual(typed.body.custom_headers, { 'X-Team': 'platform', Authorization: 'Bearer abc' });
  });

  it('lets organization admins manage webhooks, auditors read them, and nobody else see them', async () => {
    const hook = await webhook({ name: 'guarded', url: `${receiver.base}/guarded` }, orgAdmin);
    await t.post(`/api/v2/outbound_webhooks/${hook.id}/test/`, {}, { as: orgAdmin });
    const body = { name: 'intruder', organization: org, url: 'https://example.com/', events: ['job.started'] };
    for (const outsider of [member, otherAdmin]) {
      const listed = (await t.get('/api/v2/outbound_webhooks/?page_size=200', { as: outsider })).body.results;
      assert.ok(listed.every((w: any) => w.organization !== org), `${outsider.username} lists none of the organization's webhooks`);
      assert.equal((await t.get(`/api/v2/outbound_webhooks/${hook.id}/`, { as: outsider })).status, 403);
      assert.equal((await t.post('/api/v2/outbound_webhooks/', body, { as: outsider })).status, 403);
      assert.equal((await t.patch(`/api/v2/outbound_webhooks/${hook.id}/`, { url: 'https://evil.example.com/' }, { as: outsider })).status, 403);
      assert.equal((await t.put(`/api/v2/outbound_webhooks/${hook.id}/`, { ...body, url: 'https://evil.example.com/' }, { as: outsider })).status, 403);
      assert.equal((await t.delete(`/api/v2/outbound_webhooks/${hook.id}/`, { as: outsider })).status, 403);
      assert.equal((await t.post(`/api/v2/outbound_webhooks/${hook.id}/test/`, {}, { as: outsider })).status, 403);
      assert.equal((await t.get(`/api/v2/outbound_webhooks/${hook.id}/deliveries/`, { as: outsider })).status, 403);
    }
    assert.equal((await t.post('/api/v2/outbound_webhooks/', { ...body, organization: org }, { as: otherAdmin })).status, 403, 'no webhook in a foreign organization');
    assert.equal((await t.post('/api/v2/outbound_webhooks/', { ...body, organization: otherOrg }, { as: orgAdmin })).status, 403);
    assert.equal((await t.patch(`/api/v2/outbound_webhooks/${hook.id}/`, { organization: otherOrg }, { as: orgAdmin })).status, 403, 'moving needs admin of both');

    assert.equal((await t.get('/api/v2/outbound_webhooks/', { as: member })).body.count, 0);
    for (const reader of [auditor, systemAuditor]) {
      assert.ok((await t.get('/api/v2/outbound_webhooks/', { as: reader })).body.results.some((w: any) => w.id === hook.id));
      const detail = await t.get(`/api/v2/outbound_webhooks/${hook.id}/`, { as: reader });
      assert.equal(detail.status, 200);
      assert.equal(detail.body.summary_fields.user_capabilities.edit, false);
      assert.equal((await t.patch(`/api/v2/outbound_webhooks/${hook.id}/`, { enabled: false }, { as: reader })).status, 403);
      assert.equal((await t.post(`/api/v2/outbound_webhooks/${hook.id}/test/`, {}, { as: reader })).status, 403);
      assert.equal((await t.delete(`/api/v2/outbound_webhooks/${hook.id}/`, { as: reader })).status, 403);
      assert.equal((await deliveriesOf(hook.id, reader)).length, 1, 'readers of the webhook read its deliveries');
    }
    assert.equal(receiver.at('/guarded').length, 1, 'refused tests sent nothing');
    const stored = (await t.get(`/api/v2/outbound_webhooks/${hook.id}/`)).body;
    assert.equal(stored.url, hook.url);
    assert.equal(stored.enabled, true, 'refusals change nothing');

    const edited = await t.patch(`/api/v2/outbound_webhooks/${hook.id}/`, { enabled: false, ssl_verify: false }, { as: orgAdmin });
    assert.equal(edited.status, 200, edited.text);
    assert.equal(edited.body.summary_fields.user_capabilities.edit, true);
    assert.equal((await t.delete(`/api/v2/outbound_webhooks/${hook.id}/`, { as: orgAdmin })).status, 204);
    assert.equal((await t.db.query('SELECT 1 FROM outbound_webhook_deliveries WHERE webhook_id = $1', [hook.id])).length, 0, 'its deliveries go with it');
  });

  it('the test endpoint sends event_type test, signed and with the custom headers, and records the answer', async () => {
    const hook = await webhook({ custom_headers: { 'X-Team': 'ops', Authorization: 'Bearer t0ken' } });
    const res = await t.post(`/api/v2/outbound_webhooks/${hook.id}/test/`, {}, { as: orgAdmin });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { status: 200, ok: true, error: '' });
    const [delivered] = receiver.at(pathOf(hook));
    assert.ok(signatureValid(delivered, KEY), 'X-Svc-Signature is the HMAC of the raw body');
    assert.equal(delivered.headers['content-type'], 'application/json');
    assert.equal(delivered.headers['x-team'], 'ops');
    assert.equal(delivered.headers.authorization, 'Bearer t0ken');
    assert.equal(delivered.body.event_type, 'test');
    assert.deepEqual(Object.keys(delivered.body), ['event_type', 'timestamp', 'job']);
    assert.deepEqual(Object.keys(delivered.body.job), ['id', 'name', 'status', 'type', 'started', 'finished', 'elapsed', 'launch_type', 'execution_node']);
    const after = (await t.get(`/api/v2/outbound_webhooks/${hook.id}/`)).body;
    assert.equal(after.last_status, 200);
    assert.equal(after.last_error, '');
    assert.ok(after.last_sent_at);
    const [history] = await deliveriesOf(hook.id);
    assert.deepEqual({ event_type: history.event_type, status: history.status, attempts: history.attempts, response_status: history.response_status, run: history.run },
      { event_type: 'test', status: 'sent', attempts: 1, response_status: 200, run: null });

    receiver.script(pathOf(hook), [500]);
    const failed = await t.post(`/api/v2/outbound_webhooks/${hook.id}/test/`, {});
    assert.equal(failed.status, 200);
    assert.deepEqual(failed.body, { status: 500, ok: false, error: 'HTTP 500: down' });
    const recorded = (await t.get(`/api/v2/outbound_webhooks/${hook.id}/`)).body;
    assert.equal(recorded.last_status, 500);
    assert.equal(recorded.last_error, 'HTTP 500: down');
    const [latest] = await deliveriesOf(hook.id);
    assert.equal(latest.status, 'failed');

    const unreachable = await webhook({ url: 'http://127.0.0.1:9/closed' });
    const refusedConnection = await t.post(`/api/v2/outbound_webhooks/${unreachable.id}/test/`, {});
    assert.equal(refusedConnection.status, 200);
    assert.equal(refusedConnection.body.ok, false);
    assert.equal(refusedConnection.body.status, null);
    assert.match(refusedConnection.body.error, /ECONNREFUSED/);
  });

  it('checks the certificate of an https URL unless ssl_verify is off', async () => {
    const tlsPeer = await startHttpPeer(await selfSignedCert());
    try {
      const hook = await webhook({ url: `${tlsPeer.base}/tls` });
      const verified = await t.post(`/api/v2/outbound_webhooks/${hook.id}/test/`, {});
      assert.equal(verified.body.ok, false, verified.text);
      assert.equal(verified.body.status, null);
      assert.match(verified.body.error, /certificate/i);
      assert.equal(tlsPeer.received.length, 0);
      assert.equal((await t.patch(`/api/v2/outbound_webhooks/${hook.id}/`, { ssl_verify: false })).status, 200);
      const unverified = await t.post(`/api/v2/outbound_webhooks/${hook.id}/test/`, {});
      assert.deepEqual(unverified.body, { status: 200, ok: true, error: '' });
      assert.equal(tlsPeer.received.length, 1);
    } finally {
      await tlsPeer.close();
    }
  });

  it("the documentation's signature checks accept a real delivery and refuse a changed one", async () => {
    const hook = await webhook({});
    assert.equal((await t.post(`/api/v2/outbound_webhooks/${hook.id}/test/`, {})).body.ok, true);
    const [delivered] = receiver.at(pathOf(hook));
    const header = String(delivered.headers['x-svc-signature']);
    const dir = await mkdtemp(path.join(tmpdir(), 'signature-'));
    const run = promisify(execFile);

    const python = `${codeBlocks('outbound-webhooks.md', 'python')[0]}
import sys
print(signed_by(sys.argv[1], open(sys.argv[2], 'rb').read(), sys.argv[3]))
`;
    const shell = codeBlocks('outbound-webhooks.md', 'sh').find((block) => block.includes('openssl'))!;
    const check = async (body: Buffer) => {
      const file = path.join(dir, 'body.json');
      await writeFile(file, body);
      const fromPython = (await run('python3', ['-c', python, KEY, file, header])).stdout.trim();
      const fromShell = (await run('bash', ['-c', shell], { cwd: dir, env: { ...process.env, KEY } })).stdout.trim();
      return { python: fromPython, shell: fromShell === header };
    };
    assert.deepEqual(await check(delivered.raw), { python: 'True', shell: true });
    const changed = Buffer.from(delivered.raw.toString('utf8').replace('"test"', '"job.failed"'));
    assert.deepEqual(await check(changed), { python: 'False', shell: false });
  });

  it('a workflow delivers workflow.started and workflow.succeeded, or workflow.failed, to the webhooks listening', async () => {
    const all = await webhook({ events: ['workflow.started', 'workflow.succeeded', 'workflow.failed'] });
    const endsOnly = await webhook({ events: ['workflow.failed'] });
    const disabled = await webhook({ events: ['workflow.started', 'workflow.succeeded'], enabled: false });
    const jobsOnly = await webhook({ events: ['job.started', 'job.succeeded', 'job.failed', 'job.canceled'] });
    const foreign = await webhook({ organization: otherOrg, events: ['workflow.started', 'workflow.succeeded', 'workflow.failed'] });

    const wf = await makeWorkflow(t, org, 'hooked flow', { gate: {} }, []);
    const wj = await launchWorkflow(t, wf.id);
    const [started] = await receivedAt(pathOf(all), 1);
    assert.ok(signatureValid(started, KEY));
    assert.equal(started.body.event_type, 'workflow.started');
    assert.equal(started.body.job.id, wj);
    assert.equal(started.body.job.type, 'workflow_job');
    assert.equal(started.body.job.status, 'running');
    assert.equal(started.body.job.name, 'hooked flow');
    assert.equal(started.body.job.launch_type, 'manual');
    assert.ok(started.body.job.started);
    assert.equal(started.body.job.finished, null);
    assert.ok(!Number.isNaN(Date.parse(started.body.timestamp)));
    await answer(t, wj, 'gate', 'approve');
    assert.equal((await finished(t, wj)).status, 'successful');
    const [, succeeded] = await receivedAt(pathOf(all), 2);
    assert.equal(succeeded.body.event_type, 'workflow.succeeded');
    assert.equal(succeeded.body.job.status, 'successful');
    assert.ok(succeeded.body.job.finished);
    assert.equal(typeof succeeded.body.job.elapsed, 'number');

    const denied = await makeWorkflow(t, org, 'denied flow', { gate: {} }, []);
    const dj = await launchWorkflow(t, denied.id);
    await answer(t, dj, 'gate', 'deny');
    assert.equal((await finished(t, dj)).status, 'failed');
    const events = (await receivedAt(pathOf(all), 4)).map((d) => `${d.body.event_type} ${d.body.job.id}`);
    assert.deepEqual(events.sort(), [`workflow.failed ${dj}`, `workflow.started ${dj}`, `workflow.started ${wj}`, `workflow.succeeded ${wj}`].sort());
    const [failed] = await receivedAt(pathOf(endsOnly), 1);
    assert.equal(failed.body.event_type, 'workflow.failed');
    assert.equal(failed.body.job.id, dj);

    const history = await settled(all.id, 4);
    assert.deepEqual(history.map((d) => d.id), [...history.map((d) => d.id)].sort((a, b) => b - a), 'newest first');
    assert.ok(history.every((d) => d.status === 'sent' && d.attempts === 1 && d.response_status === 200 && d.error === '' && d.sent_at));
    assert.deepEqual(new Set(history.map((d) => d.run)), new Set([wj, dj]));
    assert.equal(history.find((d) => d.event_type === 'workflow.succeeded').summary_fields.run.id, wj);

    // A canceled workflow has no event; approvals are no job.
    const canceled = await makeWorkflow(t, org, 'canceled flow', { gate: {} }, []);
    const cj = await launchWorkflow(t, canceled.id);
    await receivedAt(pathOf(all), 5);
    assert.equal((await t.post(`/api/v2/workflow_jobs/${cj}/cancel/`, {})).status, 202);
    assert.equal((await finished(t, cj)).status, 'canceled');
    await settled(all.id, 5);
    assert.deepEqual(receiver.at(pathOf(all)).filter((d) => d.body.job.id === cj).map((d) => d.body.event_type), ['workflow.started']);

    for (const silent of [disabled, jobsOnly, foreign]) {
      assert.equal(receiver.at(pathOf(silent)).length, 0, `${silent.name} hears nothing`);
      assert.equal((await deliveriesOf(silent.id)).length, 0);
    }
  });

  it('retries a delivery the target refused with a 500, and records each attempt on the webhook', async () => {
    configureOutboundWebhookRetry({ delaysMs: [1_500, 1_500, 1_500, 1_500] });
    try {
      const hook = await webhook({ events: ['workflow.started'] });
      receiver.script(pathOf(hook), [500]);
      const wf = await makeWorkflow(t, org, 'flaky flow', { gate: {} }, []);
      const wj = await launchWorkflow(t, wf.id);
      await receivedAt(pathOf(hook), 1);
      const waiting = await eventually(async () => {
        const [delivery] = await deliveriesOf(hook.id);
        return delivery?.response_status === 500 && delivery;
      }, 10_000, 'the first attempt recorded');
      assert.equal(waiting.status, 'pending');
      assert.equal(waiting.attempts, 1);
      assert.equal(waiting.error, 'HTTP 500: down');
      assert.ok(Date.parse(waiting.next_attempt_at) > Date.parse(waiting.created));
      const afterFailure = (await t.get(`/api/v2/outbound_webhooks/${hook.id}/`)).body;
      assert.equal(afterFailure.last_status, 500);
      assert.equal(afterFailure.last_error, 'HTTP 500: down');

      const [delivery] = await settled(hook.id, 1);
      assert.deepEqual({ status: delivery.status, attempts: delivery.attempts, response_status: delivery.response_status, error: delivery.error },
        { status: 'sent', attempts: 2, response_status: 200, error: '' });
      const afterRetry = (await t.get(`/api/v2/outbound_webhooks/${hook.id}/`)).body;
      assert.equal(afterRetry.last_status, 200);
      assert.equal(afterRetry.last_error, '');
      const attempts = receiver.at(pathOf(hook));
      assert.equal(attempts.length, 2);
      assert.deepEqual(attempts[1].raw, attempts[0].raw, 'a retry sends the same body');
      assert.ok(attempts.every((a) => signatureValid(a, KEY)));
      await answer(t, wj, 'gate', 'approve');
      await finished(t, wj);
    } finally {
      configureOutboundWebhookRetry({ delaysMs: FAST_RETRIES });
    }
  });

  it('gives up after five attempts, and never blocks the workflow', async () => {
    const hook = await webhook({ events: ['workflow.started', 'workflow.succeeded'] });
    receiver.script(pathOf(hook), [503, 503, 503, 503, 503, 503, 503, 503, 503, 503]);
    const wf = await makeWorkflow(t, org, 'unheard flow', { gate: {} }, []);
    const wj = await launchWorkflow(t, wf.id);
    await answer(t, wj, 'gate', 'approve');
    assert.equal((await finished(t, wj)).status, 'successful');
    const history = await settled(hook.id, 2);
    assert.ok(history.every((d) => d.status === 'failed' && d.attempts === 5 && d.response_status === 503), JSON.stringify(history));
    assert.equal(receiver.at(pathOf(hook)).length, 10);
    assert.equal((await t.get(`/api/v2/outbound_webhooks/${hook.id}/`)).body.last_status, 503);
  });

  it('the SSRF guard refuses loopback and metadata addresses without the allow-list: failed at once, with the reason', async () => {
    await allowLoopback(false);
    try {
      const metadata = await webhook({ url: 'http://169.254.169.254/latest/meta-data/' });
      const loopback = await webhook({ url: `${receiver.base}/ssrf` });
      const wf = await makeWorkflow(t, org, 'guarded flow', { gate: {} }, []);
      const wj = await launchWorkflow(t, wf.id);
      for (const hook of [metadata, loopback]) {
        const [delivery] = await settled(hook.id, 1);
        assert.equal(delivery.status, 'failed');
        assert.equal(delivery.attempts, 1, 'a refusal is not retried');
        assert.equal(delivery.response_status, null);
        assert.match(delivery.error, /^Refused: /);
        const recorded = (await t.get(`/api/v2/outbound_webhooks/${hook.id}/`)).body;
        assert.equal(recorded.last_status, null);
        assert.match(recorded.last_error, /^Refused: .* is a private, loopback, link-local or reserved address; add it to OUTBOUND_URL_ALLOWLIST/);
        const test = await t.post(`/api/v2/outbound_webhooks/${hook.id}/test/`, {});
        assert.equal(test.status, 200, test.text);
        assert.equal(test.body.ok, false);
        assert.equal(test.body.status, null);
        assert.match(test.body.error, /^Refused: /);
      }
      assert.equal(receiver.at('/ssrf').length, 0, 'nothing reached the loopback receiver');
      await answer(t, wj, 'gate', 'approve');
      await finished(t, wj);
    } finally {
      await allowLoopback(true);
    }
  });

  it('a delivery whose sender stopped mid-way is sent once its claim runs out, and old settled deliveries are pruned', async () => {
    const hook = await webhook({ events: ['workflow.started'] });
    const payload = { event_type: 'workflow.started', timestamp: new Date().toISOString(), job: { id: 0, name: 'left over', status: 'running', type: 'workflow_job', started: null, finished: null, elapsed: 0, launch_type: 'manual', execution_node: '' } };
    // Claimed by a node that stopped before it answered: its claim ran out a second ago.
    await t.db.query(
      `INSERT INTO outbound_webhook_deliveries (webhook_id, event_type, payload, attempts, next_attempt_at) VALUES ($1, 'workflow.started', $2::jsonb, 1, now() - interval '1 second')`,
      [hook.id, JSON.stringify(payload)],
    );
    await t.db.query(`SELECT pg_notify('drover_outbound_webhooks', '')`);
    const [delivery] = await settled(hook.id, 1);
    assert.equal(delivery.status, 'sent');
    assert.equal(delivery.attempts, 2);
    const [delivered] = receiver.at(pathOf(hook));
    assert.equal(delivered.body.job.name, 'left over');
    assert.ok(signatureValid(delivered, KEY));

    await t.db.query(
      `INSERT INTO outbound_webhook_deliveries (webhook_id, event_type, payload, status, attempts, created) VALUES
         ($1, 'workflow.started', '{}', 'sent', 1, now() - interval '31 days'), ($1, 'workflow.started', '{}', 'failed', 5, now() - interval '40 days')`,
      [hook.id],
    );
    assert.equal((await deliveriesOf(hook.id)).length, 3);
    assert.equal(await pruneDeliveries(t.db), 2);
    assert.deepEqual((await deliveriesOf(hook.id)).map((d) => d.id), [delivery.id]);
  });

  describe('with a real job', () => {
    let repo: GitRepository;
    let projectId: number;
    let inventoryId: number;

    before(async () => {
      repo = await makeRepository({
        'ok.yml': '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hello\n',
        'fail.yml': '- hosts: all\n  gather_facts: false\n  tasks:\n    - fail: msg=boom\n',
        'slow.yml': '- hosts: all\n  gather_facts: false\n  tasks:\n    - command: sleep 60\n',
      });
      projectId = (await t.post('/api/v2/projects/', { name: 'Hooked plays', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
      await firstProjectUpdate(t, projectId);
      inventoryId = (await t.post('/api/v2/inventories/', { name: 'Hooked hosts', organization: org, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
      assert.equal((await t.post('/api/v2/hosts/', { name: 'h1', inventory: inventoryId })).status, 201);
    });
    after(() => repo.remove());

    it('delivers job.started and job.succeeded, signed, with the custom headers; job.failed for a failing one, job.canceled for a canceled one', async () => {
      const hook = await webhook({ events: ['job.started', 'job.succeeded', 'job.failed'], custom_headers: { 'X-Team': 'ops', 'X-Trace': 'abc-123' } });
      const failuresOnly = await webhook({ events: ['job.failed'] });
      const jt = (await t.post('/api/v2/job_templates/', { name: 'hooked job', project: projectId, inventory: inventoryId, playbook: 'ok.yml' })).body;
      const launched = (await t.post(`/api/v2/job_templates/${jt.id}/launch/`, {})).body;
      const job = await waitForRun(t, `/api/v2/jobs/${launched.id}/`, 120_000);
      assert.equal(job.status, 'successful');
      const [started, succeeded] = await receivedAt(pathOf(hook), 2);
      for (const delivered of [started, succeeded]) {
        assert.ok(signatureValid(delivered, KEY), 'X-Svc-Signature verifies over the raw body');
        assert.equal(delivered.headers['content-type'], 'application/json');
        assert.equal(delivered.headers['x-team'], 'ops');
        assert.equal(delivered.headers['x-trace'], 'abc-123');
        assert.equal(delivered.body.job.id, job.id);
        assert.equal(delivered.body.job.type, 'job');
        assert.equal(delivered.body.job.name, 'hooked job');
        assert.equal(delivered.body.job.launch_type, 'manual');
        assert.equal(delivered.body.job.execution_node, 'test-node');
      }
      assert.equal(started.body.event_type, 'job.started');
      assert.equal(started.body.job.status, 'running');
      assert.equal(succeeded.body.event_type, 'job.succeeded');
      assert.deepEqual(succeeded.body.job, {
        id: job.id, name: 'hooked job', status: 'successful', type: 'job', started: job.started, finished: job.finished,
        elapsed: job.elapsed, launch_type: 'manual', execution_node: 'test-node',
      });
      const history = await settled(hook.id, 2);
      assert.deepEqual(history.map((d) => d.event_type), ['job.succeeded', 'job.started']);
      assert.ok(history.every((d) => d.run === job.id && d.status === 'sent'));
      assert.equal((await t.get(`/api/v2/outbound_webhooks/${hook.id}/`)).body.last_status, 200);

      const failing = (await t.post('/api/v2/job_templates/', { name: 'failing job', project: projectId, inventory: inventoryId, playbook: 'fail.yml' })).body;
      const failedJob = await waitForRun(t, `/api/v2/jobs/${(await t.post(`/api/v2/job_templates/${failing.id}/launch/`, {})).body.id}/`, 120_000);
      assert.equal(failedJob.status, 'failed');
      const [failure] = await receivedAt(pathOf(failuresOnly), 1);
      assert.equal(failure.body.event_type, 'job.failed');
      assert.equal(failure.body.job.id, failedJob.id);
      assert.equal(failure.body.job.status, 'failed');
      const all = await receivedAt(pathOf(hook), 4);
      assert.deepEqual(all.map((d) => d.body.event_type).sort(), ['job.failed', 'job.started', 'job.started', 'job.succeeded']);

      const canceledHook = await webhook({ events: ['job.started', 'job.canceled'] });
      const slow = (await t.post('/api/v2/job_templates/', { name: 'slow job', project: projectId, inventory: inventoryId, playbook: 'slow.yml' })).body;
      const slowJob = (await t.post(`/api/v2/job_templates/${slow.id}/launch/`, {})).body;
      const [slowStarted] = await receivedAt(pathOf(canceledHook), 1);
      assert.equal(slowStarted.body.event_type, 'job.started');
      assert.equal((await t.post(`/api/v2/jobs/${slowJob.id}/cancel/`, {})).status, 202);
      assert.equal((await waitForRun(t, `/api/v2/jobs/${slowJob.id}/`, 60_000)).status, 'canceled');
      const [, canceled] = await receivedAt(pathOf(canceledHook), 2);
      assert.equal(canceled.body.event_type, 'job.canceled');
      assert.equal(canceled.body.job.id, slowJob.id);
      assert.equal(canceled.body.job.status, 'canceled');
      // The project's syncs are runs too, but no event stands for them.
      assert.ok(receiver.received.every((d) => d.body?.job?.type !== 'project_update'));
    });
  });
});
