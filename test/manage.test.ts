import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { verify } from '@node-rs/argon2';
import { checkPassword } from '../src/auth/basic.ts';
import { loadEnvConfig, type EnvConfig } from '../src/config/env.ts';
import { registerInstance } from '../src/resources/instances/registration.ts';
import { inspect, manage } from './helpers/standalone.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const root = path.resolve(import.meta.dirname, '..');


const userRow = (env: EnvConfig, username: string) =>
  inspect(env, async ({ db }) => (await db.query<AnyRow>('SELECT * FROM users WHERE username = $1', [username]))[0]);

describe('drover manage', () => {
  let env: EnvConfig;
  before(async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'drover-manage-'));
    env = await loadEnvConfig({ SVC_DATA_DIR: dataDir, SVC_ADMIN_PASSWORD: 'x', SVC_NODE_NAME: 'manage-node' });
  });

  it('help lists every command', async () => {
    const res = await manage(env, 'help');
    assert.equal(res.code, 0);
    for (const name of ['help', 'createsuperuser', 'update_password', 'print_setting', 'list_instances']) {
      assert.ok(res.out.some((line) => line.trimStart().startsWith(name)), name);
    }
    const one = await manage(env, 'help', 'update_password');
    assert.equal(one.code, 0);
    assert.match(one.out[0], /usage: drover manage update_password --username USERNAME --password PASSWORD/);
    const viaFlag = await manage(env, 'createsuperuser', '--help');
    assert.equal(viaFlag.code, 0);
    assert.match(viaFlag.out[0], /--noinput/);
  });

  it('answers 2 for an unknown command or no command', async () => {
    const unknown = await manage(env, 'frobnicate');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err[0], /unknown command "frobnicate"/);
    const none = await manage(env);
    assert.equal(none.code, 2);
    assert.ok(none.err.some((l) => l.includes('createsuperuser')));
  });

  it('createsuperuser creates a superuser through the resource framework', async () => {
    const res = await manage(env, 'createsuperuser', '--username', 'root2', '--email', 'root2@example.com', '--password', 'pw-one');
    assert.deepEqual(res, { code: 0, out: ['Superuser created successfully.'], err: [] });
    await inspect(env, async ({ db }) => {
      const [user] = await db.query<AnyRow>('SELECT * FROM users WHERE username = $1', ['root2']);
      assert.equal(user.is_superuser, true);
      assert.equal(user.email, 'root2@example.com');
      assert.notEqual(user.password, 'pw-one');
      assert.ok(await verify(user.password, 'pw-one'));
      assert.ok(await checkPassword(db, 'root2', 'pw-one'));
      const roles = await db.query<AnyRow>(
        `SELECT roles.singleton_name FROM role_users JOIN roles ON roles.id = role_users.role_id WHERE role_users.user_id = $1`,
        [user.id],
      );
      assert.deepEqual(roles.map((r) => r.singleton_name), ['system_administrator']);
      const [entry] = await db.query<AnyRow>(`SELECT * FROM activity_stream WHERE object1 = 'user' AND object1_id = $1`, [user.id]);
      assert.equal(entry.operation, 'create');
      assert.equal(entry.changes.password, 'hidden');
      assert.equal(entry.actor_id, null);
    });
  });

  it('createsuperuser reports validation problems on one line with exit code 1', async () => {
    const duplicate = await manage(env, 'createsuperuser', '--username', 'root2', '--password', 'x');
    assert.equal(duplicate.code, 1);
    assert.equal(duplicate.err.length, 1);
    assert.match(duplicate.err[0], /^Error: username: .*already exists/);

    const badEmail = await manage(env, 'createsuperuser', '--username', 'mail', '--email', 'not-an-address', '--password', 'x');
    assert.equal(badEmail.code, 1);
    assert.match(badEmail.err[0], /email: Enter a valid email address/);

    const badName = await manage(env, 'createsuperuser', '--username', 'has space', '--password', 'x');
    assert.equal(badName.code, 1);
    assert.match(badName.err[0], /username: Enter a valid username/);

    const blank = await manage(env, 'createsuperuser', '--username', 'blankpw', '--password', '');
    assert.equal(blank.code, 1);
    assert.match(blank.err[0], /password: This field may not be blank/);
    assert.equal(await userRow(env, 'mail'), undefined);
  });

  it('createsuperuser needs --username, and --password or --noinput', async () => {
    const noName = await manage(env, 'createsuperuser', '--password', 'x');
    assert.equal(noName.code, 2);
    assert.match(noName.err[0], /--username is required/);
    assert.match(noName.err[1], /^usage: drover manage createsuperuser/);
    const noPassword = await manage(env, 'createsuperuser', '--username', 'nopw');
    assert.equal(noPassword.code, 2);
    assert.match(noPassword.err[0], /--noinput/);
    const unknownOption = await manage(env, 'createsuperuser', '--username', 'x', '--bogus');
    assert.equal(unknownOption.code, 2);
  });

  it('createsuperuser --noinput without a password makes a user who cannot log in yet', async () => {
    const res = await manage(env, 'createsuperuser', '--username', 'later', '--email', 'later@example.com', '--noinput');
    assert.equal(res.code, 0);
    assert.equal(res.out[0], 'Superuser created successfully.');
    const user = await userRow(env, 'later');
    assert.equal(user.is_superuser, true);
    assert.equal(user.password, '');
    await inspect(env, async ({ db }) => assert.equal(await checkPassword(db, 'later', ''), null));
  });

  it('update_password sets a password, and says so', async () => {
    const res = await manage(env, 'update_password', '--username', 'later', '--password', 'now-set');
    assert.deepEqual(res, { code: 0, out: ['Password updated'], err: [] });
    await inspect(env, async ({ db }) => {
      assert.ok(await checkPassword(db, 'later', 'now-set'));
      const [entry] = await db.query<AnyRow>(`SELECT changes FROM activity_stream WHERE object1 = 'user' AND operation = 'update' ORDER BY id DESC LIMIT 1`);
      assert.deepEqual(entry.changes.password, ['hidden', 'hidden']);
    });
    const same = await manage(env, 'update_password', '--username', 'later', '--password', 'now-set');
    assert.deepEqual(same.out, ['Password not updated']);
  });

  it('update_password fails for an unknown user or without a password', async () => {
    const missing = await manage(env, 'update_password', '--username', 'nobody', '--password', 'x');
    assert.equal(missing.code, 1);
    assert.deepEqual(missing.err, ['Error: user "nobody" does not exist']);
    const noPassword = await manage(env, 'update_password', '--username', 'later');
    assert.equal(noPassword.code, 2);
    const blank = await manage(env, 'update_password', '--username', 'later', '--password', '');
    assert.equal(blank.code, 1);
    await inspect(env, async ({ db }) => assert.ok(await checkPassword(db, 'later', 'now-set')));
  });

  it('print_setting prints NAME = JSON for each setting, from every layer', async () => {
    const defaults = await manage(env, 'print_setting', 'MAX_FORKS', 'REMOTE_HOST_HEADERS', 'LOG_AGGREGATOR_HOST');
    assert.deepEqual(defaults, {
      code: 0,
      out: ['MAX_FORKS = 200', 'REMOTE_HOST_HEADERS = ["REMOTE_ADDR","REMOTE_HOST"]', 'LOG_AGGREGATOR_HOST = null'],
      err: [],
    });

    const file = path.join(await mkdtemp(path.join(tmpdir(), 'drover-manage-settings-')), 'settings.yaml');
    await writeFile(file, 'MAX_FORKS: 40\nSCHEDULE_MAX_JOBS: 4\n');
    await inspect(env, ({ db }) => db.query<AnyRow>(`INSERT INTO settings (key, value) VALUES ('SCHEDULE_MAX_JOBS', '7'::jsonb)`));
    const layered = await manage({ ...env, settingsFile: file }, 'print_setting', 'MAX_FORKS', 'SCHEDULE_MAX_JOBS');
    assert.deepEqual(layered.out, ['MAX_FORKS = 40', 'SCHEDULE_MAX_JOBS = 7']);
  });

  it('print_setting fails for an unknown setting, a bad settings file or no name', async () => {
    const unknown = await manage(env, 'print_setting', 'MAX_FORKS', 'NO_SUCH_SETTING');
    assert.equal(unknown.code, 1);
    assert.deepEqual(unknown.out, ['MAX_FORKS = 200']);
    assert.deepEqual(unknown.err, ['Error: unknown setting "NO_SUCH_SETTING"']);

    const file = path.join(await mkdtemp(path.join(tmpdir(), 'drover-manage-settings-')), 'bad.yaml');
    await writeFile(file, 'MAX_FORKS: many\n');
    const badFile = await manage({ ...env, settingsFile: file }, 'print_setting', 'MAX_FORKS');
    assert.equal(badFile.code, 1);
    assert.match(badFile.err[0], /settings file .*bad\.yaml: MAX_FORKS: A valid integer is required/);

    assert.equal((await manage(env, 'print_setting')).code, 2);
  });

  it('list_instances prints one line per registered node', async () => {
    const empty = await manage(env, 'list_instances');
    assert.equal(empty.code, 0);
    assert.deepEqual(empty.out, []);
    await inspect(env, (services) => registerInstance(services));
    const res = await manage(env, 'list_instances');
    assert.equal(res.code, 0);
    assert.equal(res.out.length, 1);
    assert.match(res.out[0], /^manage-node capacity=\d+ node_type=hybrid version=\S+ heartbeat="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"$/);
  });
});

describe('drover manage as a process', () => {
  let dataDir: string;
  const run = (...args: string[]) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts', 'manage', ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_DATA_DIR: dataDir, SVC_ADMIN_PASSWORD: 'x' },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );
  before(async () => (dataDir = await mkdtemp(path.join(tmpdir(), 'drover-manage-proc-'))));

  it('exits 0 with the command list for help', async () => {
    const res = await run('help');
    assert.equal(res.code, 0);
    assert.match(res.stdout, /createsuperuser/);
  });

  it('exits 1 with a message on stderr when a command fails', async () => {
    const res = await run('print_setting', 'NO_SUCH_SETTING');
    assert.equal(res.code, 1);
    assert.match(res.stderr, /unknown setting "NO_SUCH_SETTING"/);
  });

  it('exits 2 for an unknown command', async () => {
    const res = await run('frobnicate');
    assert.equal(res.code, 2);
  });
});
