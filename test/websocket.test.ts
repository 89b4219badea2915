import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { createTestApp, newOrg, type Credentials, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, firstProjectUpdate, waitForRun } from './helpers/jobs.ts';
import { serverConnection, serverMode } from './helpers/database.ts';
import { configureLiveOutput, liveLimits } from '../src/live/limits.ts';
import { ServerDatabase } from '../src/db/server.ts';
import { buildApp } from '../src/server/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const HELLO = `- hosts: all
  gather_facts: false
  tasks:
    - name: greet
      debug: msg="hello {{ inventory_hostname }}"
`;
const MANY = `- hosts: all
  gather_facts: false
  tasks:
    - name: count
      debug: msg="item {{ item }}"
      loop: "{{ range(40) | list }}"
`;

/** A websocket client that keeps every message it is sent. */
interface LiveSocket {
  messages: any[];
  /** The first message (from the start) matching, waiting for it if needed. */
  next(match: (m: any) => boolean, timeoutMs?: number): Promise<any>;
  send(message: unknown): void;
  sendRaw(text: string): void;
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

/** Opens a websocket; rejects with { status, body } when the upgrade is answered with an HTTP error. */
function openSocket(url: string, headers: Record<string, string> = {}, options: { autoPong?: boolean } = {}): Promise<LiveSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, ...options });
    const messages: any[] = [];
    const waiters: { match: (m: any) => boolean; resolve: (m: any) => void }[] = [];
    const closed = new Promise<{ code: number; reason: string }>((done) => ws.on('close', (code, reason) => done({ code, reason: reason.toString() })));
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      messages.push(message);
      for (const w of [...waiters]) {
        if (!w.match(message)) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(message);
      }
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => reject(Object.assign(new Error(`refused: ${res.statusCode}`), { status: res.statusCode, body })));
    });
    ws.on('error', reject);
    ws.on('open', () =>
      resolve({
        messages,
        closed,
        send: (message) => ws.send(JSON.stringify(message)),
        sendRaw: (text: string) => ws.send(text),
        close: () => ws.close(),
        next(match, timeoutMs = 60_000) {
          const found = messages.find(match);
          if (found) return Promise.resolve(found);
          return new Promise((res, rej) => {
            const timer = setTimeout(() => rej(new Error(`no matching message in ${timeoutMs} ms; got ${JSON.stringify(messages).slice(-1500)}`)), timeoutMs);
            waiters.push({ match, resolve: (m) => (clearTimeout(timer), res(m)) });
          });
        },
      }),
    );
  });
}

// Pings (and credential checks) often enough for a test to see them.
configureLiveOutput({ pingIntervalMs: 300 });

const isGroups = (m: any) => Array.isArray(m.groups_current);
const forRun = (id: number) => (m: any) => m.unified_job_id === id || m.job === id;

describe('live output websocket', () => {
  let t: TestApp;
  let repo: GitRepository;
  let base: string;
  let hello: number;
  let many: number;
  let project: number;
  let adminToken: string;
  let outsider: Credentials & { id: number };
  let outsiderToken: string;
  const sockets: LiveSocket[] = [];

  const tokenFor = async (who?: Credentials) => {
    const res = await t.post('/api/v2/tokens/', { scope: 'write' }, who ? { as: who } : {});
    assert.equal(res.status, 201, res.text);
    return res.body.token as string;
  };
  const connect = async (headers: Record<string, string>, path = '/websocket/') => {
    const socket = await openSocket(`${base}${path}`, headers);
    sockets.push(socket);
    await socket.next((m) => m.accept === true);
    return socket;
  };
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const subscribe = async (socket: LiveSocket, groups: Record<string, unknown>, xrftoken?: string) => {
    const before = socket.messages.filter(isGroups).length;
    socket.send({ groups, ...(xrftoken && { xrftoken }) });
    await eventually(async () => socket.messages.filter(isGroups).length > before);
    return socket.messages.filter(isGroups).at(-1);
  };
  const launch = async (template: number) => {
    const res = await t.post(`/api/v2/job_templates/${template}/launch/`, {});
    assert.equal(res.status, 201, res.text);
    return res.body.id as number;
  };

  before(async () => {
    t = await createTestApp();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `ws://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    repo = await makeRepository({ 'hello.yml': HELLO, 'many.yml': MANY });
    const org = (await newOrg(t, { name: 'Ops' })).id;
    project = (await t.post('/api/v2/projects/', { name: 'Plays', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Local', organization: org, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    for (const name of ['h1', 'h2']) assert.equal((await t.post('/api/v2/hosts/', { name, inventory })).status, 201);
    hello = (await t.post('/api/v2/job_templates/', { name: 'Hello', project, inventory, playbook: 'hello.yml' })).body.id;
    many = (await t.post('/api/v2/job_templates/', { name: 'Many', project, inventory, playbook: 'many.yml' })).body.id;
    adminToken = await tokenFor();
    outsider = await t.createUser('outsider');
    outsiderToken = await tokenFor(outsider);
  });
  after(async () => {
    for (const s of sockets) s.close();
    await t.close();
    await repo.remove();
  });

  it('refuses connections without valid credentials, with a reason', async () => {
    for (const path of ['/websocket/', '/api/websocket/']) {
      await assert.rejects(openSocket(`${base}${path}`), (err: any) => err.status === 401 && /credentials were not provided/.test(JSON.parse(err.body).detail));
    }
    await assert.rejects(openSocket(`${base}/websocket/`, bearer('not-a-token')), (err: any) => err.status === 401 && /Invalid token/.test(err.body));
    const plain = await t.get('/websocket/');
    assert.equal(plain.status, 426);
    assert.match(plain.body.detail, /websocket connections only/);
  });

  it('a session client must send the CSRF token (xrftoken) with its messages; {"groups": {}} leaves every group', async () => {
    const session = await t.login();
    const cookie = [...session.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    const socket = await connect({ cookie }, '/api/websocket/');
    const xrf = session.cookies.get('csrftoken')!;

    socket.send({ groups: { jobs: ['status_changed'] } });
    await socket.next((m) => m.error === 'access denied to channel');
    const before = socket.messages.filter((m) => m.error).length;
    socket.send({ groups: { jobs: ['status_changed'] }, xrftoken: 'wrong' });
    await eventually(async () => socket.messages.filter((m) => m.error).length > before);
    assert.equal(socket.messages.filter(isGroups).length, 0, 'nothing joined without the token');

    const joined = await subscribe(socket, { jobs: ['status_changed', 'summary'] }, xrf);
    assert.deepEqual(joined.groups_current.sort(), ['jobs-status_changed', 'jobs-summary']);
    assert.deepEqual(joined.groups_joined.sort(), ['jobs-status_changed', 'jobs-summary']);
    const narrowed = await subscribe(socket, { jobs: ['summary'] }, xrf);
    assert.deepEqual(narrowed, { groups_current: ['jobs-summary'], groups_left: ['jobs-status_changed'], groups_joined: [] });
    const left = await subscribe(socket, {}, xrf);
    assert.deepEqual(left, { groups_current: [], groups_left: ['jobs-summary'], groups_joined: [] });
  });

  it('answers bad messages with an error and keeps the groups it had', async () => {
    const socket = await connect(bearer(adminToken));
    await subscribe(socket, { jobs: ['summary'] });
    const errors = () => socket.messages.filter((m) => m.error).map((m) => m.error);
    const expectError = async (raw: string, pattern: RegExp) => {
      const before = errors().length;
      socket.sendRaw(raw);
      await eventually(async () => errors().length > before);
      assert.match(errors().at(-1), pattern, raw);
    };
    await expectError('not json', /JSON objects/);
    await expectError('[1, 2]', /JSON objects/);
    await expectError('{"groups": ["jobs"]}', /groups must be an object/);
    await expectError('{"groups": {"jobs": "summary"}}', /^access denied to channel$/);
    await expectError(JSON.stringify({ groups: { job_events: Array.from({ length: 201 }, (_, i) => i + 1) } }), /at most 200 groups/);
    const partial = await subscribe(socket, { jobs: ['summary', 'everything'], nonsense: [1], job_events: ['abc', -1, 999999] });
    assert.deepEqual(partial, { groups_current: ['jobs-summary'], groups_left: [], groups_joined: [] }, 'the errors changed nothing');
    for (const refused of ['channel jobs for resource id everything', 'channel nonsense for resource id 1', 'channel job_events for resource id abc', 'channel job_events for resource id -1', 'channel job_events for resource id 999999']) {
      assert.ok(errors().includes(`access denied to ${refused}`), refused);
    }
  });

  it('streams a job to its readers: status changes, events in counter order, EOF and summary; others get nothing', async () => {
    const session = await t.login();
    const cookie = [...session.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    const xrf = session.cookies.get('csrftoken')!;
    const viaToken = await connect(bearer(adminToken));
    const viaSession = await connect({ cookie });
    const stranger = await connect(bearer(outsiderToken));
    await subscribe(viaToken, { jobs: ['status_changed', 'summary'] });
    await subscribe(viaSession, { jobs: ['status_changed', 'summary'] }, xrf);
    await subscribe(stranger, { jobs: ['status_changed', 'summary'] });

    const id = await launch(hello);
    await subscribe(viaToken, { jobs: ['status_changed', 'summary'], job_events: [id] });
    await subscribe(viaSession, { jobs: ['status_changed', 'summary'], job_events: [String(id)] }, xrf);
    const refused = await subscribe(stranger, { jobs: ['status_changed', 'summary'], job_events: [id] });
    assert.deepEqual(refused.groups_current.sort(), ['jobs-status_changed', 'jobs-summary']);
    assert.ok(stranger.messages.some((m) => m.error === `access denied to channel job_events for resource id ${id}`));

    const job = await waitForRun(t, `/api/v2/jobs/${id}/`, 120_000);
    assert.equal(job.status, 'successful', job.job_explanation);
    const rest = (await t.get(`/api/v2/jobs/${id}/job_events/?page_size=200`)).body.results;

    for (const socket of [viaToken, viaSession]) {
      const eof = await socket.next((m) => m.event === 'EOF' && m.job === id);
      assert.equal(eof.group_name, 'job_events');
      assert.equal(eof.final_counter, rest.at(-1).counter);
      const summary = await socket.next((m) => m.group_name === 'jobs' && m.unified_job_id === id && 'final_counter' in m);
      assert.equal(summary.final_counter, eof.final_counter);

      const statuses = socket.messages.filter((m) => m.group_name === 'jobs' && m.unified_job_id === id && m.status);
      const order = ['pending', 'waiting', 'running', 'successful'];
      assert.deepEqual(statuses.map((m) => m.status), order.filter((s) => statuses.some((m) => m.status === s)), 'in the order of the moves');
      for (const s of ['pending', 'running', 'successful']) assert.ok(statuses.some((m) => m.status === s), `status ${s} pushed`);
      const final = statuses.at(-1);
      assert.equal(final.type, 'job');
      assert.equal(final.unified_job_template_id, hello);
      assert.ok(final.finished);

      const events = socket.messages.filter((m) => m.type === 'job_event');
      assert.ok(events.length >= 5, 'events pushed');
      assert.ok(events.every((e) => e.job === id && e.group_name === 'job_events'));
      const counters = events.map((e) => e.counter);
      assert.deepEqual(counters, counters.map((_, i) => counters[0] + i), 'every event once, in counter order');
      assert.equal(counters.at(-1), eof.final_counter);
      assert.ok(socket.messages.indexOf(eof) > socket.messages.indexOf(events.at(-1)), 'EOF after the last event');
      assert.ok(events.some((e) => e.event === 'playbook_on_stats'));
      for (const event of events) {
        const stored = rest.find((r: any) => r.counter === event.counter);
        for (const field of ['id', 'type', 'job', 'event', 'uuid', 'parent_uuid', 'stdout', 'start_line', 'end_line', 'host', 'host_name', 'task', 'play', 'role', 'changed', 'failed', 'event_level', 'created']) {
          assert.deepEqual(event[field], stored[field], `${field} of event ${event.counter}`);
        }
        assert.deepEqual(event.event_data, stored.event_data);
      }
    }
    await viaToken.next((m) => m.unified_job_id === id && m.final_counter !== undefined);
    assert.deepEqual(stranger.messages.filter(forRun(id)), [], 'nothing of a job the user may not read');
  });

  it('streams project updates as project_update_events', async () => {
    const socket = await connect(bearer(adminToken));
    await subscribe(socket, { jobs: ['status_changed'] });
    const update = (await t.post(`/api/v2/projects/${project}/update/`)).body;
    assert.ok(update.id, JSON.stringify(update));
    await subscribe(socket, { jobs: ['status_changed'], project_update_events: [update.id] });
    const eof = await socket.next((m) => m.event === 'EOF' && m.project_update === update.id, 120_000);
    assert.equal(eof.group_name, 'project_update_events');
    const events = socket.messages.filter((m) => m.type === 'project_update_event');
    assert.ok(events.length > 0);
    assert.ok(events.every((e) => e.project_update === update.id && e.group_name === 'project_update_events'));
    assert.equal(events.at(-1).counter, eof.final_counter);
    const statuses = socket.messages.filter((m) => m.unified_job_id === update.id && m.status).map((m) => m.status);
    assert.equal(statuses.at(-1), 'successful');
    assert.ok(socket.messages.filter((m) => m.unified_job_id === update.id && m.status).every((m) => m.type === 'project_update' && m.unified_job_template_id === project));
  });

  it('a client of another node sharing the database gets the run too (LISTEN/NOTIFY)', { skip: !serverMode() && 'needs a PostgreSQL server' }, async () => {
    const [{ name }] = await t.db.query<AnyRow>('SELECT current_database() AS name');
    const db = new ServerDatabase(serverConnection(name));
    const other = await buildApp({ ...t.services, db }, { dispatcher: false });
    try {
      await other.listen({ port: 0, host: '127.0.0.1' });
      const socket = await openSocket(`ws://127.0.0.1:${(other.server.address() as { port: number }).port}/websocket/`, bearer(adminToken));
      sockets.push(socket);
      await socket.next((m) => m.accept === true);
      await subscribe(socket, { jobs: ['status_changed'] });
      const id = await launch(hello);
      await subscribe(socket, { jobs: ['status_changed'], job_events: [id] });
      const eof = await socket.next((m) => m.event === 'EOF' && m.job === id, 120_000);
      assert.ok(eof.final_counter > 0);
      assert.ok(socket.messages.some((m) => m.type === 'job_event' && m.job === id && m.event === 'playbook_on_stats'));
      assert.ok(socket.messages.some((m) => m.unified_job_id === id && m.status === 'successful'));
    } finally {
      await other.close();
      await db.close();
    }
  });

  it('closes a socket once its token is revoked or its session ends, and drops one that does not answer pings', async () => {
    const token = await t.post('/api/v2/tokens/', { scope: 'read' }, { as: outsider });
    const viaToken = await connect(bearer(token.body.token));
    const session = await t.login(outsider);
    const cookie = [...session.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ');
    const viaSession = await connect({ cookie });
    const quiet = await openSocket(`${base}/websocket/`, bearer(adminToken), { autoPong: false });
    sockets.push(quiet);
    // Instead of waiting a while: the heartbeat that drops the quiet socket comes a full ping interval
    // after one that checked the credentials of the token socket, which is still open and silent.
    assert.equal((await quiet.closed).code, 1006, 'terminated without a close frame');
    assert.equal(viaToken.messages.length, 1, 'still open while the token is valid');

    assert.equal((await t.delete(`/api/v2/tokens/${token.body.id}/`, { as: outsider })).status, 204);
    const tokenClosed = await viaToken.closed;
    assert.equal(tokenClosed.code, 1008);
    assert.match(tokenClosed.reason, /token is no longer valid/);
    assert.equal((await session.post('/api/logout/', {})).status < 400, true);
    const sessionClosed = await viaSession.closed;
    assert.equal(sessionClosed.code, 1008);
    assert.match(sessionClosed.reason, /session has expired or ended/);
  });

  it('closes a client whose unsent output grows beyond the limit', async () => {
    const saved = liveLimits.maxBufferedBytes;
    configureLiveOutput({ maxBufferedBytes: -1 });
    try {
      const socket = await openSocket(`${base}/websocket/`, bearer(adminToken));
      sockets.push(socket);
      const closed = await socket.closed;
      assert.equal(closed.code, 1013);
      assert.match(closed.reason, /Too much output/);
      assert.deepEqual(socket.messages, []);
    } finally {
      configureLiveOutput({ maxBufferedBytes: saved });
    }
  });

  it('skips events beyond the per-client rate and says how many, and where to read them', async () => {
    const saved = liveLimits.eventsPerSecond;
    configureLiveOutput({ eventsPerSecond: 5 });
    try {
      const socket = await connect(bearer(adminToken));
      const id = await launch(many);
      await subscribe(socket, { job_events: [id] });
      const eof = await socket.next((m) => m.event === 'EOF' && m.job === id, 120_000);
      const sent = socket.messages.filter((m) => m.type === 'job_event').map((m) => m.counter);
      const skipped = socket.messages.filter((m) => m.event === 'events_skipped' && m.job === id);
      assert.ok(skipped.length >= 1, 'a summary of what was skipped');
      const covered = [...sent];
      for (const s of skipped) {
        assert.equal(s.group_name, 'job_events');
        assert.equal(s.skipped, s.last_counter - s.first_counter + 1);
        for (let c = s.first_counter; c <= s.last_counter; c++) covered.push(c);
        const page = await t.get(`${s.url}&page_size=200`);
        assert.equal(page.status, 200);
        assert.equal(page.body.count, s.skipped, 'the skipped events are readable through the API');
      }
      covered.sort((a, b) => a - b);
      assert.deepEqual(covered, covered.map((_, i) => covered[0] + i), 'each event either sent or counted as skipped, once');
      assert.equal(covered.at(-1), eof.final_counter);
      assert.ok(sent.length < eof.final_counter / 2, `few sent (${sent.length} of ${eof.final_counter})`);
    } finally {
      configureLiveOutput({ eventsPerSecond: saved });
    }
  });
});
