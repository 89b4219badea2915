/** Log shipping to loopback aggregators (TCP, UDP, HTTPS), the logging test endpoint, and the service log's request and trace ids (docs/logging.md). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import https from 'node:https';
import net from 'node:net';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createRootLog } from '../src/logging/structured.ts';
import { shipFacts } from '../src/logging/sources.ts';
import { createTestApp, newInventory, newJobTemplate, newOrg, newProject, newUser, type TestApp, type User } from './helpers/app.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';
import { selfSignedCert } from './helpers/notification-peers.ts';
import WebSocket from 'ws';
import { configureLiveOutput, liveLimits } from '../src/live/limits.ts';

const PASSWORD = 'aggregator-sekrit-9f2c';
const TEST_URL = '/api/v2/settings/logging/test/';
type Rec = Record<string, any>;

interface Aggregator { port: number; records: Rec[]; raw: string[]; close(): Promise<void> }

async function tcpAggregator(): Promise<Aggregator> {
  const records: Rec[] = [];
  const raw: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        raw.push(line);
        records.push(JSON.parse(line));
      }
    });
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port, records, raw,
    close: () => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }),
  };
}

async function udpAggregator(): Promise<Aggregator> {
  const records: Rec[] = [];
  const raw: string[] = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (msg) => {
    raw.push(msg.toString('utf8'));
    records.push(JSON.parse(msg.toString('utf8')));
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: socket.address().port, records, raw, close: () => new Promise((resolve) => socket.close(() => resolve())) };
}

async function httpsAggregator(): Promise<Aggregator & { headers: Rec[] }> {
  const records: Rec[] = [];
  const raw: string[] = [];
  const headers: Rec[] = [];
  const server = https.createServer(await selfSignedCert(), (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      raw.push(body);
      headers.push({ ...req.headers, url: req.url, method: req.method });
      records.push(JSON.parse(body));
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port, records, raw, headers,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

const logLines: Rec[] = [];
const logStream = new Writable({
  write(chunk, _enc, done) {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) logLines.push(JSON.parse(line));
    done();
  },
});

describe('log shipping', () => {
  let t: TestApp;
  let tcp: Aggregator;
  let udp: Aggregator;
  let web: Aggregator & { headers: Rec[] };
  let plain: User;
  let orgAdmin: User;

  const configure = async (values: Rec) => {
    const res = await t.patch('/api/v2/settings/logging/', values);
    assert.equal(res.status, 200, res.text);
    return res;
  };
  const find = (agg: Aggregator, test: (r: Rec) => boolean, what: string) => eventually(async () => agg.records.find(test), 10_000, what);

  before(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    [tcp, udp, web] = await Promise.all([tcpAggregator(), udpAggregator(), httpsAggregator()]);
    t = await createTestApp({}, { log: createRootLog({ level: 'info', node: 'test-node', destination: logStream }), accessLog: true });
    const org = await newOrg(t);
    const other = await newOrg(t);
    plain = await newUser(t, { member: org });
    orgAdmin = await newUser(t, { admin: other });
  });
  after(async () => {
    await t?.close();
    await Promise.all([tcp?.close(), udp?.close(), web?.close()]);
  });

  it('the test endpoint is for superusers only, and answers 409 while logging is off', async () => {
    for (const who of [plain, orgAdmin]) {
      assert.equal((await t.post(TEST_URL, {}, { as: who })).status, 403);
      assert.equal((await t.patch('/api/v2/settings/logging/', { LOG_AGGREGATOR_HOST: 'evil' }, { as: who })).status, 403);
    }
    assert.equal((await t.post(TEST_URL, {}, { as: null })).status, 401);
    const res = await t.post(TEST_URL, {});
    assert.equal(res.status, 409);
    assert.deepEqual(res.body, { error: 'Logging not enabled' });
    assert.equal((await t.get('/api/v2/settings/logging/')).body.LOG_AGGREGATOR_HOST, null);
  });

  it('refuses bad settings and unknown keys posted to the test endpoint, sending nothing', async () => {
    const res = await t.post(TEST_URL, { LOG_AGGREGATOR_ENABLED: true, LOG_AGGREGATOR_LOGGERS: ['awx', 'nope'], LOG_AGGREGATOR_COLOUR: 1 });
    assert.equal(res.status, 400);
    assert.ok(res.body.LOG_AGGREGATOR_LOGGERS);
    assert.ok(res.body.LOG_AGGREGATOR_COLOUR);
    assert.equal((await t.patch('/api/v2/settings/logging/', { LOG_AGGREGATOR_LOGGERS: ['awx', 'nope'] })).status, 400);
    const noHost = await t.post(TEST_URL, { LOG_AGGREGATOR_ENABLED: true, LOG_AGGREGATOR_TYPE: 'other' });
    assert.equal(noHost.status, 400);
    assert.deepEqual(noHost.body, { error: 'Cannot enable log aggregator without providing host.' });
    const noPort = await t.post(TEST_URL, { LOG_AGGREGATOR_ENABLED: true, LOG_AGGREGATOR_HOST: '127.0.0.1', LOG_AGGREGATOR_PROTOCOL: 'tcp' });
    assert.deepEqual([noPort.status, noPort.body], [400, { error: 'Port required for tcp' }]);
  });

  it('TCP: the activity stream and the service log at the level threshold, loggers not listed left out', async () => {
    const res = await configure({
      LOG_AGGREGATOR_HOST: '127.0.0.1', LOG_AGGREGATOR_PORT: tcp.port, LOG_AGGREGATOR_PROTOCOL: 'tcp', LOG_AGGREGATOR_TYPE: 'logstash',
      LOG_AGGREGATOR_LOGGERS: ['awx', 'activity_stream'], LOG_AGGREGATOR_LEVEL: 'WARNING', LOG_AGGREGATOR_TOWER_UUID: 'cluster-7',
      LOG_AGGREGATOR_USERNAME: 'shipper', LOG_AGGREGATOR_PASSWORD: PASSWORD, LOG_AGGREGATOR_ENABLED: true,
    });
    assert.equal(res.body.LOG_AGGREGATOR_PASSWORD, '$encrypted$');
    assert.ok(!res.text.includes(PASSWORD));
    await t.settle();
    const org = await newOrg(t, { name: 'Shipped Org' });
    const entry = await find(tcp, (r) => r.logger_name === 'awx.analytics.activity_stream' && r.object1 === 'organization' && r.object1_id === org.id, 'activity entry');
    assert.equal(entry.operation, 'create');
    assert.equal(entry.changes.name, 'Shipped Org');
    assert.equal(entry.actor, 'admin');
    assert.equal(entry.level, 'INFO');
    assert.equal(entry.message, 'Activity Stream update entry for organization');
    assert.equal(entry.cluster_host_id, 'test-node');
    assert.equal(entry.tower_uuid, 'cluster-7');
    assert.equal(entry.type, 'logstash');
    assert.ok(entry.host);
    assert.ok(!Number.isNaN(Date.parse(entry['@timestamp'])));

    t.services.logger.info('below the threshold');
    t.services.logShipper.ship({ logger: 'job_events', level: 'INFO', message: 'Event data saved.', fields: { event: 'not-listed' } });
    t.services.logger.error('scheduler pass failed: %s', 'boom');
    const loud = await find(tcp, (r) => r.message === 'scheduler pass failed: boom', 'service log record');
    assert.deepEqual([loud.logger_name, loud.level], ['awx', 'ERROR']);
    // One connection, in order: what came before the marker would have arrived.
    assert.ok(!tcp.records.some((r) => r.message === 'below the threshold' || r.event === 'not-listed'));

    const tested = await t.post(TEST_URL, {});
    assert.equal(tested.status, 202, tested.text);
    const test = await find(tcp, (r) => r.message === 'AWX Connection Test Message', 'test message');
    assert.deepEqual([test.logger_name, test.level], ['awx', 'ERROR']);
  });

  it('TCP: broadcast_websocket, a live output client closed for the output waiting for it', async () => {
    await configure({
      LOG_AGGREGATOR_HOST: '127.0.0.1', LOG_AGGREGATOR_PORT: tcp.port, LOG_AGGREGATOR_PROTOCOL: 'tcp',
      LOG_AGGREGATOR_LOGGERS: ['broadcast_websocket'], LOG_AGGREGATOR_LEVEL: 'INFO', LOG_AGGREGATOR_ENABLED: true,
    });
    await t.settle();
    const token = await t.post('/api/v2/tokens/', { scope: 'read' }, { as: plain });
    assert.equal(token.status, 201, token.text);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const saved = liveLimits.maxBufferedBytes;
    configureLiveOutput({ maxBufferedBytes: -1 });
    try {
      const ws = new WebSocket(`ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/websocket/`, { headers: { authorization: `Bearer ${token.body.token}` } });
      const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
      assert.equal(await closed, 1013);
    } finally {
      configureLiveOutput({ maxBufferedBytes: saved });
    }
    const record = await find(tcp, (r) => r.logger_name === 'awx.analytics.broadcast_websocket', 'broadcast_websocket record');
    assert.deepEqual([record.level, record.reason, record.user], ['WARNING', 'slow', plain.username]);
    assert.match(record.message, /live output client of user .* was closed/);
    assert.ok(!JSON.stringify(record).includes(token.body.token), 'no token in the record');
  });

  it('UDP: job events of a real run and facts, one record per fact when asked', async () => {
    await configure({ LOG_AGGREGATOR_PROTOCOL: 'udp', LOG_AGGREGATOR_PORT: udp.port, LOG_AGGREGATOR_LOGGERS: ['job_events', 'system_tracking'], LOG_AGGREGATOR_INDIVIDUAL_FACTS: true });
    const test = await t.post(TEST_URL, {});
    assert.equal(test.status, 202, test.text);
    await find(udp, (r) => r.message === 'AWX Connection Test Message' && r.logger_name === 'awx.analytics.job_events', 'test message');

    const org = await newOrg(t);
    const project = await newProject(t, org);
    const inventory = await newInventory(t, org, { hosts: ['web1'] });
    const template = await newJobTemplate(t, { project, inventory });
    const launched = await t.post(`/api/v2/job_templates/${template.id}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    const job = await waitForRun(t, `/api/v2/jobs/${launched.body.id}/`);
    assert.equal(job.status, 'successful');
    const stats = await find(udp, (r) => r.job === job.id && r.event === 'playbook_on_stats', 'playbook_on_stats');
    assert.equal(stats.logger_name, 'awx.analytics.job_events');
    assert.equal(stats.message, 'Event data saved.');
    assert.equal(typeof stats.counter, 'number');
    assert.ok(stats.event_data);
    const hostEvent = await find(udp, (r) => r.job === job.id && r.event === 'runner_on_ok', 'a host event');
    assert.equal(hostEvent.host_name, 'web1');
    assert.ok(!udp.raw.some((line) => line.includes('"logger_name":"awx"')), 'the service log is not listed');

    const host = (await t.get(`/api/v2/inventories/${inventory.id}/hosts/`)).body.results[0];
    await t.db.query(`UPDATE hosts SET ansible_facts = $2::jsonb, ansible_facts_modified = now() WHERE id = $1`,
      [host.id, JSON.stringify({ ansible_distribution: 'Debian', ansible_python: { version_info: [3, 11], executable: '/usr/bin/python3' }, ansible_python_version: '3.11' })]);
    await shipFacts(t.db, t.services.logShipper, job.id, [host.id]);
    const factRecords = () => udp.records.filter((r) => r.logger_name === 'awx.analytics.system_tracking' && r.host_name === 'web1');
    await eventually(async () => factRecords().length >= 2, 10_000, 'fact records');
    const facts = factRecords();
    assert.deepEqual(facts.map((r) => Object.keys(r.ansible_facts)[0]).sort(), ['ansible_distribution', 'ansible_python']);
    assert.deepEqual(facts.find((r) => r.ansible_facts.ansible_python)?.ansible_facts.ansible_python, { executable: '/usr/bin/python3' });
    assert.equal(facts[0].inventory_id, inventory.id);
    assert.equal(facts[0].job_id, job.id);
    assert.equal(facts[0].message, `New fact for inventory ${inventory.name} host web1`);
  });

  it('HTTPS: POSTed JSON with basic auth or a Splunk token, certificate checked unless turned off', async () => {
    await configure({ LOG_AGGREGATOR_PROTOCOL: 'https', LOG_AGGREGATOR_HOST: `https://127.0.0.1:${web.port}/ingest`, LOG_AGGREGATOR_PORT: null, LOG_AGGREGATOR_LOGGERS: ['activity_stream', 'awx'], LOG_AGGREGATOR_VERIFY_CERT: true });
    const refused = await t.post(TEST_URL, {});
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /certificate/);
    assert.ok(!refused.text.includes(PASSWORD));

    await configure({ LOG_AGGREGATOR_VERIFY_CERT: false });
    assert.equal((await t.post(TEST_URL, {})).status, 202);
    const test = await find(web, (r) => r.message === 'AWX Connection Test Message', 'test message');
    assert.equal(test.logger_name, 'awx.analytics.activity_stream');
    const sent = web.headers[web.records.indexOf(test)];
    assert.equal(sent.url, '/ingest');
    assert.equal(sent['content-type'], 'application/json');
    assert.equal(sent.authorization, `Basic ${Buffer.from(`shipper:${PASSWORD}`).toString('base64')}`);

    const team = (await t.post('/api/v2/teams/', { name: 'Shipped Team', organization: (await newOrg(t)).id })).body;
    await find(web, (r) => r.object1 === 'team' && r.object1_id === team.id, 'team entry');

    // The settings change itself is in the activity stream, with the password hidden.
    await configure({ LOG_AGGREGATOR_TYPE: 'splunk', LOG_AGGREGATOR_PASSWORD: 'hec-token-1' });
    assert.equal((await t.post(TEST_URL, {})).status, 202);
    await eventually(async () => web.headers.some((h) => h.authorization === 'Splunk hec-token-1'), 10_000, 'Splunk token');
    await t.settle();
    await find(web, (r) => r.object1 === 'setting' && JSON.stringify(r.changes).includes('LOG_AGGREGATOR_TYPE'), 'settings entry');
    for (const agg of [tcp, udp, web]) {
      assert.ok(!agg.raw.some((line) => line.includes(PASSWORD) || line.includes('hec-token-1')), 'no secret in a shipped record');
    }
  });

  it('posted settings are tried in place of the stored ones', async () => {
    const before = tcp.records.length;
    const res = await t.post(TEST_URL, { LOG_AGGREGATOR_PROTOCOL: 'tcp', LOG_AGGREGATOR_HOST: '127.0.0.1', LOG_AGGREGATOR_PORT: tcp.port, LOG_AGGREGATOR_LOGGERS: ['awx'], LOG_AGGREGATOR_PASSWORD: '$encrypted$' });
    assert.equal(res.status, 202, res.text);
    await eventually(async () => tcp.records.slice(before).some((r) => r.message === 'AWX Connection Test Message'), 10_000, 'test message over TCP');
    assert.equal((await t.get('/api/v2/settings/logging/')).body.LOG_AGGREGATOR_PROTOCOL, 'https');
    const closed = await t.post(TEST_URL, { LOG_AGGREGATOR_PROTOCOL: 'tcp', LOG_AGGREGATOR_HOST: '127.0.0.1', LOG_AGGREGATOR_PORT: 1 });
    assert.equal(closed.status, 400);
    assert.match(closed.body.error, /ECONNREFUSED/);
  });

  it('the service log: JSON lines with the request id (a sensible X-Request-ID kept) and the active trace id', async () => {
    const res = await t.get('/api/v2/ping/', { headers: { 'x-request-id': 'req-abc.123' } });
    assert.equal(res.headers['x-request-id'], 'req-abc.123');
    const access = await eventually(async () => logLines.find((l) => l.request_id === 'req-abc.123' && l.msg === 'request'), 5_000, 'access line');
    assert.deepEqual([access.method, access.url, access.status, access.user, typeof access.ms], ['GET', '/api/v2/ping/', 200, 'admin', 'number']);
    const odd = await t.get('/api/v2/ping/', { headers: { 'x-request-id': 'has spaces and\ttabs' } });
    assert.match(String(odd.headers['x-request-id']), /^[0-9a-f-]{36}$/);

    const span = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });
    await context.with(trace.setSpan(context.active(), span), async () => {
      t.services.logger.warn('inside a span');
      await t.get('/api/v2/ping/', { headers: { 'x-request-id': 'req-in-span' } });
    });
    const line = logLines.find((l) => l.msg === 'inside a span');
    assert.deepEqual([line?.trace_id, line?.span_id, line?.logger, line?.level], ['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331', 'awx', 40]);
    const inSpan = await eventually(async () => logLines.find((l) => l.request_id === 'req-in-span'), 5_000, 'access line in span');
    assert.equal(inSpan.trace_id, '0af7651916cd43dd8448eb211c80319c');
    assert.ok(!logLines.some((l) => JSON.stringify(l).includes(PASSWORD)));
  });
});
