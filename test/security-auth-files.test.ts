// Basic authentication under the login throttle and audit, who sees paths in /api/v2/config/, and
// the modes of everything the service writes (data directory, database, keys, run directories).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadEnvConfig } from '../src/config/env.ts';
import { cleanLeftoverRuns, ensureRunDirectoriesRoot, makeRunDirectory, runDirectoriesRoot } from '../src/dispatcher/run-directories.ts';
import { startService, type RunningService } from '../src/server/start.ts';
import { ADMIN, createTestApp, newOrg, newUser, type Credentials, type TestApp } from './helpers/app.ts';
import { serverMode } from './helpers/database.ts';
import { eventually } from './helpers/jobs.ts';
import { spawnService, type ServiceProcess } from './helpers/service-process.ts';
import { standaloneValues } from './helpers/standalone.ts';

const TOO_MANY = /^Too many failed login attempts\. Try again in (\d+) seconds\.$/;

describe('Basic authentication goes through the login throttle and audit', () => {
  let t: TestApp;
  let member: Credentials & { id: number };
  let secondAdmin: Credentials & { id: number };
  const victims: Record<string, Credentials & { id: number }> = {};

  before(async () => {
    t = await createTestApp();
    const defaultOrg = (await t.get('/api/v2/organizations/Default/')).body.id;
    member = await newUser(t, { username: 'member-mallory', member: defaultOrg });
    secondAdmin = await newUser(t, { username: 'second-admin', admin: await newOrg(t) });
    for (const name of ['victim-alice', 'victim-bob', 'victim-carol', 'victim-dan']) victims[name] = await newUser(t, { username: name, member: defaultOrg });
  });
  after(() => t.close());

  /** A Basic request from a client address (the test client is a trusted proxy, so X-Forwarded-For is believed). */
  const basicFrom = (who: Credentials, address: string, url = '/api/v2/me/') => t.get(url, { as: who, headers: { 'x-forwarded-for': address } });
  const guess = (username: string, n: number) => ({ username, password: `guess-${n}` });
  const audits = async (query: string) => {
    const res = await t.get(`/api/v2/audit_events/?${query}&order_by=id&page_size=200`);
    assert.equal(res.status, 200, res.text);
    return res.body.results as any[];
  };
  /** Lets the failures of a username age out of the window, as a minute passing would. */
  const ageOut = (kind: string, key: string) =>
    t.db.query(`UPDATE login_failures SET attempted = now() - interval '61 seconds' WHERE kind = $1 AND key = $2`, [kind, key]);

  it('(a) a plain organization member guessing another user\'s password: 429 after five failures, even for the right (cached) password', async () => {
    const alice = victims['victim-alice'];
    // The victim's own request first, so that her password is in the cache of verified credentials.
    assert.equal((await basicFrom(alice, '10.20.0.1')).status, 200);
    assert.equal((await basicFrom(member, '10.20.1.1')).status, 200, 'the attacker is a member who can log in');
    for (let i = 0; i < 5; i++) {
      const res = await basicFrom(guess('victim-alice', i), '10.20.1.1');
      assert.equal(res.status, 401, `guess ${i}`);
      assert.deepEqual(res.body, { detail: 'Invalid username/password.' });
    }
    const throttled = await basicFrom(guess('victim-alice', 5), '10.20.1.1');
    assert.equal(throttled.status, 429);
    const [, seconds] = TOO_MANY.exec(throttled.body.detail) ?? [];
    assert.ok(seconds, throttled.text);
    assert.equal(throttled.headers['retry-after'], seconds);
    assert.ok(Number(seconds) >= 1 && Number(seconds) <= 60);
    // The right password, cached or from elsewhere, is refused while the user is throttled: a
    // 200 would tell the attacker the guess was right.
    const right = await basicFrom(alice, '10.20.9.9');
    assert.equal(right.status, 429);
    assert.match(right.body.detail, TOO_MANY);
    // The attacker's own account and address are not affected (five failures are below the address limit).
    assert.equal((await basicFrom(member, '10.20.1.1')).status, 200);
    // Nor can the attacker read the audit log.
    assert.equal((await basicFrom(member, '10.20.1.1', '/api/v2/audit_events/')).status, 403);

    const failures = await audits('event_type=auth.login&outcome=failure&actor_username=victim-alice');
    assert.equal(failures.length, 5, 'one audit event per failure');
    for (const event of failures) {
      assert.equal(event.auth_method, 'basic');
      assert.equal(event.remote_addr, '10.20.1.1');
      assert.equal(event.actor, null);
      assert.deepEqual(event.detail, { reason: 'invalid_credentials' });
      assert.ok(!JSON.stringify(event).includes('guess-'), 'the password tried is never recorded');
    }
    const denied = await audits('event_type=auth.throttled&actor_username=victim-alice');
    assert.equal(denied.length, 2);
    assert.deepEqual(denied.map((e) => [e.outcome, e.auth_method, e.detail.scope]), [['denied', 'basic', 'username'], ['denied', 'basic', 'username']]);
    assert.deepEqual(denied.map((e) => e.remote_addr), ['10.20.1.1', '10.20.9.9']);

    await ageOut('username', 'victim-alice');
    assert.equal((await basicFrom(alice, '10.20.0.1')).status, 200, 'the user passes again once the failures age out');
  });

  it('(b) the admin of a second organization spraying usernames from one address: the address is throttled, for every user', async () => {
    assert.equal((await basicFrom(secondAdmin, '10.30.0.1')).status, 200);
    for (let i = 0; i < 20; i++) assert.equal((await basicFrom(guess(`sprayed-${i}`, i), '10.30.0.1')).status, 401, `guess ${i}`);
    for (const who of [victims['victim-bob'], secondAdmin]) {
      const res = await basicFrom(who, '10.30.0.1');
      assert.equal(res.status, 429, who.username);
      assert.ok(Number(res.headers['retry-after']) >= 1);
    }
    const [event] = (await audits('event_type=auth.throttled&actor_username=victim-bob')).slice(-1);
    assert.equal(event.detail.scope, 'address');
    assert.equal(event.remote_addr, '10.30.0.1');
    assert.equal((await audits('event_type=auth.login&outcome=failure&remote_addr=10.30.0.1')).length, 20);
    // Other addresses, and the users themselves elsewhere, are not affected.
    assert.equal((await basicFrom(victims['victim-bob'], '10.30.0.2')).status, 200);
    assert.equal((await basicFrom(secondAdmin, '10.30.0.2')).status, 200);
    await ageOut('address', '10.30.0.1');
    assert.equal((await basicFrom(secondAdmin, '10.30.0.1')).status, 200);
  });

  it('a burst of concurrent guesses gets no more than the limit checked', async () => {
    // From many addresses, so only the username's limit applies; none waits for another to fail.
    const burst = await Promise.all(Array.from({ length: 25 }, (_, i) => basicFrom(guess('victim-carol', i), `10.40.0.${i + 1}`)));
    const statuses = burst.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 401).length, 5, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 429).length, 20);
    assert.equal((await audits('event_type=auth.login&outcome=failure&actor_username=victim-carol')).length, 5);
    assert.equal((await basicFrom(victims['victim-carol'], '10.40.1.1')).status, 429);
  });

  it('a successful Basic request does not reset the failures of its user', async () => {
    const dan = victims['victim-dan'];
    for (let i = 0; i < 4; i++) assert.equal((await basicFrom(guess('victim-dan', i), '10.50.0.1')).status, 401);
    assert.equal((await basicFrom(dan, '10.50.0.2')).status, 200);
    assert.equal((await basicFrom(guess('victim-dan', 4), '10.50.0.1')).status, 401);
    assert.equal((await basicFrom(dan, '10.50.0.2')).status, 429, 'the fifth failure throttles, however many successes came between');
  });

  it('Basic failures and login failures share one counter', async () => {
    const user = await t.createUser('shared-counter');
    for (let i = 0; i < 3; i++) assert.equal((await basicFrom(guess('shared-counter', i), '10.60.0.1')).status, 401);
    for (let i = 3; i < 5; i++) {
      const res = await t.post('/api/login/', { username: 'shared-counter', password: `guess-${i}` }, { as: null, headers: { 'x-forwarded-for': '10.60.0.1' } });
      assert.equal(res.status, 401);
    }
    assert.equal((await basicFrom(user, '10.60.0.2')).status, 429);
    const login = await t.post('/api/login/', { username: 'shared-counter', password: user.password }, { as: null, headers: { 'x-forwarded-for': '10.60.0.2' } });
    assert.equal(login.status, 429);
  });

  it('unknown bearer tokens count against the address, with an audit event each', async () => {
    const bearerFrom = (token: string, address: string) => t.get('/api/v2/me/', { as: null, headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address } });
    for (let i = 0; i < 20; i++) assert.equal((await bearerFrom(`made-up-token-${i}`, '10.70.0.1')).status, 401);
    const res = await bearerFrom('made-up-token-20', '10.70.0.1');
    assert.equal(res.status, 429);
    assert.match(res.body.detail, TOO_MANY);
    assert.ok(Number(res.headers['retry-after']) >= 1);
    const failures = await audits('event_type=auth.login&outcome=failure&remote_addr=10.70.0.1');
    assert.equal(failures.length, 20);
    assert.deepEqual(new Set(failures.map((e) => `${e.auth_method} ${e.detail.reason}`)), new Set(['token invalid_token']));
    assert.ok(!JSON.stringify(failures).includes('made-up-token'), 'the token tried is never recorded');
    // The same address is throttled for passwords too.
    assert.equal((await basicFrom(member, '10.70.0.1')).status, 429);
    // A real token still works: only unknown values are counted, and no one can guess a token.
    const token = await t.post('/api/v2/tokens/', { scope: 'read' }, { as: member });
    assert.equal(token.status, 201, token.text);
    assert.equal((await bearerFrom(token.body.token, '10.70.0.1')).status, 200);
  });

  describe('/api/v2/config/ shows paths only to superusers', () => {
    const PATH_KEYS = ['project_base_dir', 'project_local_paths'];

    it('a plain member, the admin of another organization and a system auditor see no paths', async () => {
      const auditor = await t.createUser('config-auditor', { is_system_auditor: true });
      for (const who of [member, secondAdmin, auditor]) {
        const res = await t.get('/api/v2/config/', { as: who });
        assert.equal(res.status, 200, who.username);
        for (const key of PATH_KEYS) assert.ok(!(key in res.body), `${who.username} sees ${key}`);
        assert.ok(!res.text.includes(t.env.projectsRoot) && !res.text.includes(t.env.dataDir), `${who.username} sees a path: ${res.text}`);
        assert.ok(res.body.version, 'the rest is there');
      }
    });

    it('a superuser sees them', async () => {
      const res = await t.get('/api/v2/config/', { as: ADMIN });
      assert.equal(res.status, 200);
      assert.equal(res.body.project_base_dir, t.env.projectsRoot);
      assert.deepEqual(res.body.project_local_paths, []);
    });
  });
});

/** Entries under `root` (itself included) with any group or other permission, and how many entries there are. */
async function openEntries(root: string): Promise<{ open: string[]; count: number }> {
  const open: string[] = [];
  let count = 0;
  const visit = async (entry: string) => {
    const st = await lstat(entry).catch(() => null);
    // Gone meanwhile, or a link (whose own mode means nothing).
    if (!st || st.isSymbolicLink()) return;
    count++;
    if (st.mode & 0o077) open.push(`${path.relative(root, entry) || '.'} ${(st.mode & 0o7777).toString(8)}`);
    if (st.isDirectory()) for (const name of await readdir(entry).catch(() => [] as string[])) await visit(path.join(entry, name));
  };
  await visit(root);
  return { open, count };
}

const modeOf = async (file: string) => (await stat(file)).mode & 0o7777;

const GATE_PLAYBOOK = (gate: string) => `- hosts: all
  gather_facts: false
  tasks:
    - name: wait for the test
      wait_for:
        path: ${gate}
        timeout: 300
`;

describe('files the service creates are private to its user', () => {
  const NODE = 'files-node';
  const ADMIN_PASSWORD = 'files-admin-pw';
  const ports = { NGINX_HTTP_PORT: '0', NGINX_HTTPS_PORT: '0', SVC_LISTEN_ADDRESS: '127.0.0.1', SVC_NODE_NAME: NODE, SVC_LOG_LEVEL: 'warn', SVC_ADMIN_PASSWORD: ADMIN_PASSWORD };
  let first: ServiceProcess | undefined;
  let firstDir = '';
  let second: RunningService | undefined;
  let secondDir = '';
  let secondLines: string[] = [];
  let gateDir = '';
  let jobUrl = '';
  let runDir = '';

  before(async () => {
    gateDir = await mkdtemp(path.join(tmpdir(), 'drover-gate-'));
    const { dataDir, values } = await standaloneValues('files-first', ports);
    firstDir = dataDir;
    first = await spawnService(values, { username: 'admin', password: ADMIN_PASSWORD });
  });
  after(async () => {
    await writeFile(path.join(gateDir, 'open'), '').catch(() => undefined);
    await second?.close();
    await first?.stop();
    await rm(gateDir, { recursive: true, force: true });
  });

  it('a running job\'s private directory holds nothing open to others', async () => {
    const api = first!.api;
    // A manual project placed in the projects root by the administrator (with private modes, so
    // that what is found open below was made so by the service).
    const projectDir = path.join(firstDir, 'projects', 'gate-project');
    await mkdir(projectDir, { mode: 0o700 });
    await chmod(projectDir, 0o700);
    await writeFile(path.join(projectDir, 'gate.yml'), GATE_PLAYBOOK(path.join(gateDir, 'open')), { mode: 0o600 });
    const org = (await api('GET', '/api/v2/organizations/Default/')).body;
    // The playbook waits for a file the test makes: its directory is shown to runs.
    assert.equal((await api('PATCH', '/api/v2/settings/jobs/', { AWX_ISOLATION_SHOW_PATHS: [gateDir] })).status, 200);
    const project = await api('POST', '/api/v2/projects/', { name: 'Gate', organization: org.id, scm_type: '', local_path: 'gate-project' });
    assert.equal(project.status, 201, project.text);
    const inventory = (await api('GET', '/api/v2/inventories/?name=Demo%20Inventory')).body.results[0];
    assert.ok(inventory, 'the demo inventory was created at start');
    const template = await api('POST', '/api/v2/job_templates/', { name: 'Gate', project: project.body.id, inventory: inventory.id, playbook: 'gate.yml' });
    assert.equal(template.status, 201, template.text);
    const launched = await api('POST', `/api/v2/job_templates/${template.body.id}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    jobUrl = `/api/v2/jobs/${launched.body.job}/`;
    await eventually(async () => {
      const job = (await api('GET', jobUrl)).body;
      assert.ok(['pending', 'waiting', 'running'].includes(job.status), `the job ended early: ${job.status} ${job.job_explanation} ${(await api('GET', `${jobUrl}stdout/?format=txt`)).text}`);
      return (await api('GET', `${jobUrl}job_events/?task=wait%20for%20the%20test`)).body.count > 0;
    }, 60_000);

    const root = runDirectoriesRoot({ dataDir: firstDir, nodeName: NODE });
    const [name] = (await readdir(root)).filter((entry) => entry.startsWith(`drover-run-${launched.body.job}-`));
    assert.ok(name, `the run's directory is under ${root}`);
    runDir = path.join(root, name);
    const { open, count } = await openEntries(runDir);
    assert.ok(count > 5, `the run directory holds the run's files (${count})`);
    assert.ok(existsSync(path.join(runDir, 'project', 'gate.yml')));
    assert.deepEqual(open, []);
    assert.equal(await modeOf(root), 0o700);
    assert.equal(await modeOf(path.dirname(root)), 0o700);
  });

  it('a second installation on the machine, with the same node name, has its own run directory, and its start leaves the first one\'s running job alone', async () => {
    const { dataDir, values } = await standaloneValues('files-second', { ...ports, SVC_CREATE_DEMO_DATA: 'false' });
    secondDir = dataDir;
    // A data directory as an earlier version, or a looser umask, may have left it.
    await chmod(secondDir, 0o755);
    const ownLeftover = path.join(secondDir, 'runs', NODE, 'drover-run-7-leftover');
    await mkdir(ownLeftover, { recursive: true, mode: 0o777 });
    await chmod(path.join(secondDir, 'runs'), 0o777);
    await chmod(path.join(secondDir, 'runs', NODE), 0o755);
    await mkdir(path.join(secondDir, 'projects', 'manual'), { recursive: true, mode: 0o755 });
    await chmod(path.join(secondDir, 'projects', 'manual'), 0o755);
    await writeFile(path.join(secondDir, 'projects', 'manual', 'site.yml'), '- hosts: all\n', { mode: 0o644 });
    await chmod(path.join(secondDir, 'projects', 'manual', 'site.yml'), 0o644);
    await mkdir(path.join(secondDir, 'tls'), { mode: 0o755 });
    await chmod(path.join(secondDir, 'tls'), 0o755);
    if (!serverMode()) {
      await writeFile(path.join(secondDir, 'secret_key'), 'an-older-secret-key-written-with-a-loose-mode-0644\n', { mode: 0o644 });
      await chmod(path.join(secondDir, 'secret_key'), 0o644);
    }

    const env = await loadEnvConfig(values);
    assert.notEqual(runDirectoriesRoot(env), runDirectoriesRoot({ dataDir: firstDir, nodeName: NODE }));
    secondLines = [];
    second = await startService(env, (line) => secondLines.push(line));
    assert.equal(existsSync(ownLeftover), false, 'its own leftover run is cleaned up');
    assert.ok(existsSync(runDir), 'the first installation\'s run directory is untouched');
    assert.equal((await first!.api('GET', jobUrl)).body.status, 'running');

    await writeFile(path.join(gateDir, 'open'), '');
    const job = await eventually(async () => {
      const body = (await first!.api('GET', jobUrl)).body;
      return ['successful', 'failed', 'error', 'canceled'].includes(body.status) ? body : null;
    }, 60_000);
    assert.equal(job.status, 'successful', `${job.job_explanation} ${(await first!.api('GET', `${jobUrl}stdout/?format=txt`)).text}`);
    assert.equal(existsSync(runDir), false, 'the finished run\'s directory is removed');
  });

  it('an earlier data directory with loose modes is made private at start', async () => {
    assert.ok(second, 'the second installation started');
    assert.ok(secondLines.some((l) => /^Made \d+ file\(s\) and directories under .* private to this user/.test(l)), secondLines.join('\n'));
    const { open, count } = await openEntries(secondDir);
    assert.ok(count > 3);
    assert.deepEqual(open, []);
    assert.equal(await modeOf(secondDir), 0o700);
    assert.equal(await modeOf(path.join(secondDir, 'tls', 'selfsigned.key')), 0o600);
    if (!serverMode()) assert.equal(await modeOf(path.join(secondDir, 'secret_key')), 0o600);
    await second!.close();
    second = undefined;
  });

  it('a fresh installation: database, secret key, certificate, demo repository, checkouts and run directories, nothing open to others', async () => {
    const demo = await eventually(async () => {
      const [project] = (await first!.api('GET', '/api/v2/projects/?name=Demo%20Project')).body.results;
      return project && !['new', 'pending', 'waiting', 'running', 'updating'].includes(project.status) ? project : null;
    }, 60_000);
    assert.ok(demo, 'the demo project was created and its first update ended');
    const check = async (when: string) => {
      const { open, count } = await openEntries(firstDir);
      assert.deepEqual(open, [], when);
      assert.ok(count > 10, `${when}: ${count} entries`);
    };
    await check('while the service runs');
    for (const dir of ['tls', 'demo', 'projects', 'runs']) assert.equal(await modeOf(path.join(firstDir, dir)), 0o700, dir);
    assert.equal(await modeOf(firstDir), 0o700);
    assert.equal(await modeOf(path.join(firstDir, 'tls', 'selfsigned.key')), 0o600);
    assert.equal(await modeOf(path.join(firstDir, 'tls', 'selfsigned.crt')), 0o600);
    if (!serverMode()) {
      assert.equal(await modeOf(path.join(firstDir, 'secret_key')), 0o600);
      assert.equal(await modeOf(path.join(firstDir, 'broadcast_websocket_secret')), 0o600);
      assert.equal(await modeOf(path.join(firstDir, 'pgdata')), 0o700);
    }
    await first!.stop();
    await check('after the service stopped');
  });

  it('a run directory that is not private to the service\'s user is refused, or made private', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'drover-runs-owner-'));
    try {
      const node = { dataDir, nodeName: NODE };
      await mkdir(path.join(dataDir, 'runs'), { mode: 0o777 });
      await chmod(path.join(dataDir, 'runs'), 0o777);
      assert.equal(await ensureRunDirectoriesRoot(node), runDirectoriesRoot(node));
      assert.equal(await modeOf(path.join(dataDir, 'runs')), 0o700);
      assert.equal(await modeOf(runDirectoriesRoot(node)), 0o700);

      if (process.getuid?.() !== 0) return;
      // Someone else's directory where the runs would go (only root can make one here).
      await chown(runDirectoriesRoot(node), 65534, 65534);
      await assert.rejects(cleanLeftoverRuns(node), /belongs to user id 65534/);
      await assert.rejects(makeRunDirectory(node, 1), /belongs to user id 65534/);
      await chown(runDirectoriesRoot(node), 0, 0);
      await rm(runDirectoriesRoot(node), { recursive: true });
      await writeFile(runDirectoriesRoot(node), '');
      await assert.rejects(makeRunDirectory(node, 1), /not a directory|EEXIST|ENOTDIR/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('a data directory of another user is refused at start', { skip: process.getuid?.() !== 0 && 'needs root to give a directory away' }, async () => {
    const { dataDir, values } = await standaloneValues('files-foreign', { ...ports, SVC_CREATE_DEMO_DATA: 'false' });
    await chown(dataDir, 65534, 65534);
    await assert.rejects(startService(await loadEnvConfig(values), () => undefined), /SVC_DATA_DIR .* belongs to user id 65534/);
  });
});
