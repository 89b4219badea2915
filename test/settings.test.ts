import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { secret, text } from '../src/api/fields.ts';
import { ConfigError } from '../src/config/env.ts';
import { settingRegistry } from '../src/composition/settings.ts';
import { loadSettings } from '../src/config/settings/store.ts';
import { category, setting } from '../src/config/settings/types.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/jobs.ts';

// A category with a secret, as an integration (LDAP, say) would declare one.
const testSecrets = category({
  slug: 'test_secrets',
  name: 'Test Secrets',
  settings: {
    TEST_BIND_DN: setting<string>(text({ label: 'Bind DN' })),
    TEST_BIND_PASSWORD: setting<string>(secret({ label: 'Bind Password' })),
  },
});

// Stands for the installation's id, which each test database has its own of.
const INSTALL_UUID = Symbol('install uuid');

const DEFAULTS: Record<string, Record<string, unknown>> = {
  jobs: {
    SCHEDULE_MAX_JOBS: 10,
    SVC_TASK_ENV: {},
    AWX_TASK_ENV: {},
    DEFAULT_JOB_TIMEOUT: 0,
    DEFAULT_INVENTORY_UPDATE_TIMEOUT: 0,
    DEFAULT_PROJECT_UPDATE_TIMEOUT: 0,
    MAX_FORKS: 200,
    SVC_ROLES_ENABLED: true,
    AWX_ROLES_ENABLED: true,
    SVC_COLLECTIONS_ENABLED: true,
    AWX_COLLECTIONS_ENABLED: true,
    PROJECT_UPDATE_VVV: false,
    PROJECT_ARCHIVE_MAX_BYTES: 104857600,
    PROJECT_ARCHIVE_MAX_UNPACKED_BYTES: 524288000,
    PROJECT_LOCAL_SOURCE_DIRS: [],
    ALLOW_JINJA_IN_EXTRA_VARS: 'template',
    AD_HOC_COMMANDS: [
      'command', 'shell', 'yum', 'apt', 'apt_key', 'apt_repository', 'apt_rpm', 'service', 'group', 'user', 'mount', 'ping',
      'selinux', 'setup', 'win_ping', 'win_service', 'win_updates', 'win_group', 'win_user', 'copy',
    ],
    AWX_ISOLATION_BASE_PATH: '/tmp',
    AWX_ISOLATION_ENABLED: true,
    AWX_ISOLATION_HIDE_PATHS: [],
    AWX_ISOLATION_SHOW_PATHS: [],
    ALLOW_CONNECTION_VARS_ON_LAUNCH: false,
    AWX_RUNNER_KEEPALIVE_SECONDS: 0,
    GALAXY_TASK_ENV: { ANSIBLE_FORCE_COLOR: 'false', GIT_SSH_COMMAND: 'ssh -o StrictHostKeyChecking=no' },
    AWX_SHOW_PLAYBOOK_LINKS: false,
    AWX_MOUNT_ISOLATED_PATHS_ON_K8S: false,
    GALAXY_IGNORE_CERTS: false,
    STDOUT_MAX_BYTES_DISPLAY: 1048576,
    EVENT_STDOUT_MAX_BYTES_DISPLAY: 1024,
    MAX_WEBSOCKET_EVENT_RATE: 30,
    AWX_ANSIBLE_CALLBACK_PLUGINS: [],
    DEFAULT_JOB_IDLE_TIMEOUT: 0,
    ANSIBLE_FACT_CACHE_TIMEOUT: 0,
    DEFAULT_CONTAINER_RUN_OPTIONS: ['--network', 'slirp4netns:enable_ipv6=true'],
  },
  authentication: {
    SESSION_COOKIE_AGE: 1800,
    SESSIONS_PER_USER: -1,
    AUTH_BASIC_ENABLED: true,
    ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false,
    ALLOW_METRICS_FOR_ANONYMOUS_USERS: false,
    SOCIAL_AUTH_ORGANIZATION_MAP: {},
    SOCIAL_AUTH_TEAM_MAP: {},
    SOCIAL_AUTH_USER_FIELDS: null,
    SOCIAL_AUTH_TIMEOUT: 10,
    OAUTH2_PROVIDER: { ACCESS_TOKEN_EXPIRE_SECONDS: 31536000000, AUTHORIZATION_CODE_EXPIRE_SECONDS: 600, REFRESH_TOKEN_EXPIRE_SECONDS: 2628000 },
  },
  logging: {
    LOG_AGGREGATOR_HOST: null,
    LOG_AGGREGATOR_PORT: null,
    LOG_AGGREGATOR_TYPE: null,
    LOG_AGGREGATOR_TOWER_UUID: '',
    LOG_AGGREGATOR_PROTOCOL: 'https',
    LOG_AGGREGATOR_USERNAME: '',
    LOG_AGGREGATOR_PASSWORD: '',
    LOG_AGGREGATOR_LOGGERS: ['awx', 'activity_stream', 'job_events', 'system_tracking', 'broadcast_websocket'],
    LOG_AGGREGATOR_INDIVIDUAL_FACTS: false,
    LOG_AGGREGATOR_ENABLED: false,
    LOG_AGGREGATOR_TCP_TIMEOUT: 5,
    LOG_AGGREGATOR_VERIFY_CERT: true,
    LOG_AGGREGATOR_LEVEL: 'WARNING',
  },
  system: {
    ACTIVITY_STREAM_ENABLED: true,
    ORG_ADMINS_CAN_SEE_ALL_USERS: true,
    MANAGE_ORGANIZATION_AUTH: true,
    SVC_URL_BASE: '',
    TOWER_URL_BASE: '',
    REMOTE_HOST_HEADERS: ['REMOTE_ADDR', 'REMOTE_HOST'],
    PROXY_IP_ALLOWED_LIST: [],
    DEFAULT_EXECUTION_ENVIRONMENT: null,
    LIST_QUERY_TIMEOUT: 5,
    CLUSTER_NODE_HEARTBEAT_PERIOD: 30,
    CLUSTER_NODE_MISSED_HEARTBEAT_TOLERANCE: 2,
    ACTIVITY_STREAM_ENABLED_FOR_INVENTORY_SYNC: false,
    CSRF_TRUSTED_ORIGINS: [],
    LICENSE: {},
    REDHAT_USERNAME: '',
    REDHAT_PASSWORD: '',
    SUBSCRIPTIONS_USERNAME: '',
    SUBSCRIPTIONS_PASSWORD: '',
    AUTOMATION_ANALYTICS_URL: 'https://example.com',
    INSTALL_UUID: INSTALL_UUID,
    DEFAULT_CONTROL_PLANE_QUEUE_NAME: 'controlplane',
    DEFAULT_EXECUTION_QUEUE_NAME: 'default',
    CUSTOM_VENV_PATHS: [],
    INSIGHTS_TRACKING_STATE: false,
    AUTOMATION_ANALYTICS_GATHER_INTERVAL: 14400,
    IS_K8S: false,
    UI_NEXT: true,
    SUBSCRIPTION_USAGE_MODEL: '',
  },
  ui: {
    PENDO_TRACKING_STATE: 'off',
    CUSTOM_LOGIN_INFO: '',
    CUSTOM_LOGO: '',
    MAX_UI_JOB_EVENTS: 4000,
    UI_LIVE_UPDATES_ENABLED: true,
  },
  debug: { AWX_CLEANUP_PATHS: true, AWX_REQUEST_PROFILE: false, RECEPTOR_RELEASE_WORK: true },
  bulk: { BULK_JOB_MAX_LAUNCH: 100, BULK_HOST_MAX_CREATE: 100, BULK_HOST_MAX_DELETE: 250 },
  security: {
    OUTBOUND_URL_ALLOWLIST: [],
    OPA_ENABLED: false,
    OPA_SERVER_URL: 'http://127.0.0.1:8181',
    OPA_EVALUATION_TIMEOUT_MS: 2000,
    POLICY_ENGINE_EVALUATION_TIMEOUT_MS: 2000,
    OPA_FAIL_MODE: 'allow',
    SCANNER_ENABLED: false,
    SCANNER_FAIL_MODE: 'open',
  },
};

const tempFile = async (name: string, content: string) => {
  const file = path.join(await mkdtemp(path.join(tmpdir(), 'drover-settings-')), name);
  await writeFile(file, content);
  return file;
};

const storedKeys = async (t: TestApp) => (await t.db.query<{ key: string }>('SELECT key FROM settings ORDER BY key')).map((r) => r.key);

describe('settings API', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp({}, { extraSettingCategories: [testSecrets] })));
  after(() => t.close());

  it('lists the categories with the all pseudo-category first', async () => {
    const res = await t.get('/api/v2/settings/');
    assert.equal(res.status, 200);
    assert.equal(res.body.next, null);
    assert.equal(res.body.previous, null);
    assert.equal(res.body.count, res.body.results.length);
    assert.deepEqual(res.body.results[0], { url: '/api/v2/settings/all/', slug: 'all', name: 'All' });
    const slugs = res.body.results.map((r: { slug: string }) => r.slug);
    for (const slug of Object.keys(DEFAULTS)) assert.ok(slugs.includes(slug), slug);
    const jobs = res.body.results.find((r: { slug: string }) => r.slug === 'jobs');
    assert.deepEqual(jobs, { url: '/api/v2/settings/jobs/', slug: 'jobs', name: 'Jobs' });
  });

  for (const [slug, defaults] of Object.entries(DEFAULTS)) {
    it(`reads the ${slug} category with its defaults`, async () => {
      const res = await t.get(`/api/v2/settings/${slug}/`);
      assert.equal(res.status, 200);
      const expected = Object.fromEntries(Object.entries(defaults).map(([name, value]) => [name, value === INSTALL_UUID ? t.services.installUuid : value]));
      assert.deepEqual(res.body, expected);
      for (const [name, value] of Object.entries(expected)) assert.deepEqual(t.services.settings.get(name), value);
    });
  }

  it('answers every setting under all', async () => {
    const res = await t.get('/api/v2/settings/all/');
    assert.equal(res.status, 200);
    for (const defaults of Object.values(DEFAULTS)) {
      for (const [name, value] of Object.entries(defaults)) assert.deepEqual(res.body[name], value === INSTALL_UUID ? t.services.installUuid : value, name);
    }
  });

  it('answers 404 for an unknown category', async () => {
    const res = await t.get('/api/v2/settings/nosuch/');
    assert.equal(res.status, 404);
    assert.ok(res.body.detail);
    assert.equal((await t.patch('/api/v2/settings/nosuch/', { MAX_FORKS: 1 })).status, 404);
  });

  it('stores a valid PATCH and makes it effective at once', async () => {
    const res = await t.patch('/api/v2/settings/jobs/', { MAX_FORKS: 50, SVC_TASK_ENV: { HTTP_PROXY: 'http://proxy:3128', RETRIES: 3 } });
    assert.equal(res.status, 200);
    assert.equal(res.body.MAX_FORKS, 50);
    assert.deepEqual(res.body.SVC_TASK_ENV, { HTTP_PROXY: 'http://proxy:3128', RETRIES: '3' });
    assert.equal(res.body.SCHEDULE_MAX_JOBS, 10);

    const read = await t.get('/api/v2/settings/jobs/');
    assert.equal(read.body.MAX_FORKS, 50);
    assert.equal((await t.get('/api/v2/settings/all/')).body.MAX_FORKS, 50);
    assert.equal(t.services.settings.get('MAX_FORKS'), 50);
    assert.equal(t.services.settings.source('MAX_FORKS'), 'database');
    const [row] = await t.db.query(`SELECT value, modified_by_id FROM settings WHERE key = 'MAX_FORKS'`);
    assert.equal(row.value, 50);
    assert.equal(row.modified_by_id, 1);
  });

  it('hands out values that callers cannot change', () => {
    const headers = t.services.settings.get('REMOTE_HOST_HEADERS');
    assert.throws(() => (headers as string[]).push('X'));
  });

  it('refuses a value of the wrong type with 400 and stores nothing', async () => {
    const cases: [string, string, unknown][] = [
      ['jobs', 'MAX_FORKS', 'many'],
      ['jobs', 'MAX_FORKS', 1.5],
      ['jobs', 'SCHEDULE_MAX_JOBS', 0],
      ['jobs', 'SVC_ROLES_ENABLED', 'perhaps'],
      ['jobs', 'SVC_TASK_ENV', ['A=1']],
      ['jobs', 'SVC_TASK_ENV', { A: { nested: true } }],
      ['jobs', 'DEFAULT_JOB_TIMEOUT', null],
      ['authentication', 'SESSION_COOKIE_AGE', 59],
      ['authentication', 'OAUTH2_PROVIDER', { ACCESS_TOKEN_EXPIRE_SECONDS: 'long' }],
      ['authentication', 'OAUTH2_PROVIDER', { TOKEN_LIFETIME: 5 }],
      ['authentication', 'OAUTH2_PROVIDER', 'forever'],
      ['logging', 'LOG_AGGREGATOR_TYPE', 'graylog'],
      ['logging', 'LOG_AGGREGATOR_LEVEL', 'warning'],
      ['logging', 'LOG_AGGREGATOR_PORT', 70000],
      ['logging', 'LOG_AGGREGATOR_PROTOCOL', 'ftp'],
      ['logging', 'LOG_AGGREGATOR_LOGGERS', ['awx', 'syslog']],
      ['logging', 'LOG_AGGREGATOR_TCP_TIMEOUT', 0],
      ['system', 'REMOTE_HOST_HEADERS', 'REMOTE_ADDR'],
      ['system', 'REMOTE_HOST_HEADERS', ['REMOTE_ADDR', 7]],
      ['system', 'PROXY_IP_ALLOWED_LIST', ['not a host']],
      ['system', 'SVC_URL_BASE', 'drover.example.com'],
      ['ui', 'CUSTOM_LOGO', 'http://example.com/logo.png'],
      ['security', 'OUTBOUND_URL_ALLOWLIST', { host: '10.0.0.0/8' }],
      ['security', 'OUTBOUND_URL_ALLOWLIST', ['10.0.0.0/33']],
      ['security', 'SCANNER_FAIL_MODE', 'ajar'],
    ];
    for (const [slug, name, value] of cases) {
      const res = await t.patch(`/api/v2/settings/${slug}/`, { [name]: value });
      assert.equal(res.status, 400, `${name}=${JSON.stringify(value)}: ${res.text}`);
      assert.deepEqual(Object.keys(res.body), [name]);
      assert.ok(Array.isArray(res.body[name]) && typeof res.body[name][0] === 'string', res.text);
    }
    assert.deepEqual(await storedKeys(t), ['MAX_FORKS', 'SVC_TASK_ENV']);
    assert.equal(t.services.settings.get('MAX_FORKS'), 50);
  });

  it('stores none of a PATCH when one of its keys is bad', async () => {
    const res = await t.patch('/api/v2/settings/jobs/', { SCHEDULE_MAX_JOBS: 3, PROJECT_UPDATE_VVV: true, MAX_FORKS: 'x' });
    assert.equal(res.status, 400);
    assert.deepEqual(Object.keys(res.body), ['MAX_FORKS']);
    const read = await t.get('/api/v2/settings/jobs/');
    assert.equal(read.body.SCHEDULE_MAX_JOBS, 10);
    assert.equal(read.body.PROJECT_UPDATE_VVV, false);
    assert.equal(t.services.settings.get('SCHEDULE_MAX_JOBS'), 10);
    assert.deepEqual(await storedKeys(t), ['MAX_FORKS', 'SVC_TASK_ENV']);
  });

  it('refuses unknown keys and keys of another category', async () => {
    const res = await t.patch('/api/v2/settings/jobs/', { NO_SUCH_SETTING: 1, SCHEDULE_MAX_JOBS: 4 });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { NO_SUCH_SETTING: ['Unknown setting.'] });
    const other = await t.patch('/api/v2/settings/jobs/', { SESSION_COOKIE_AGE: 600 });
    assert.equal(other.status, 400);
    assert.match(other.body.SESSION_COOKIE_AGE[0], /authentication/);
    assert.equal(t.services.settings.get('SCHEDULE_MAX_JOBS'), 10);
    assert.equal(t.services.settings.get('SESSION_COOKIE_AGE'), 1800);
  });

  it('refuses a body that is not an object', async () => {
    const res = await t.patch('/api/v2/settings/jobs/', [1, 2]);
    assert.equal(res.status, 400);
    assert.ok(res.body.detail);
  });

  it('checks rules spanning settings against the values after the write', async () => {
    const alone = await t.patch('/api/v2/settings/logging/', { LOG_AGGREGATOR_ENABLED: true });
    assert.equal(alone.status, 400);
    assert.equal(alone.body.LOG_AGGREGATOR_ENABLED.length, 2);
    const together = await t.patch('/api/v2/settings/logging/', {
      LOG_AGGREGATOR_ENABLED: true,
      LOG_AGGREGATOR_HOST: 'logs.example.com',
      LOG_AGGREGATOR_TYPE: 'splunk',
      LOG_AGGREGATOR_PORT: 8088,
    });
    assert.equal(together.status, 200, together.text);
    const clearHost = await t.patch('/api/v2/settings/logging/', { LOG_AGGREGATOR_HOST: null });
    assert.equal(clearHost.status, 400);
    assert.deepEqual(clearHost.body, { LOG_AGGREGATOR_ENABLED: ['Cannot enable log aggregator without providing host.'] });
    assert.equal(t.services.settings.get('LOG_AGGREGATOR_HOST'), 'logs.example.com');
  });

  it('normalizes values: URL base without trailing slash, trimmed list items', async () => {
    const res = await t.patch('/api/v2/settings/system/', {
      SVC_URL_BASE: 'https://drover.example.com/',
      REMOTE_HOST_HEADERS: [' HTTP_X_FORWARDED_FOR ', 'REMOTE_ADDR'],
      PROXY_IP_ALLOWED_LIST: ['10.0.0.1', 'proxy.example.com', '192.168.0.0/16', '::1'],
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.SVC_URL_BASE, 'https://drover.example.com');
    assert.deepEqual(res.body.REMOTE_HOST_HEADERS, ['HTTP_X_FORWARDED_FOR', 'REMOTE_ADDR']);
    const security = await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['*.internal.example', '10.1.0.0/16', 'fd00::/8'] });
    assert.equal(security.status, 200, security.text);
    assert.deepEqual(t.services.settings.get('OUTBOUND_URL_ALLOWLIST'), ['*.internal.example', '10.1.0.0/16', 'fd00::/8']);
  });

  it('fills missing OAUTH2_PROVIDER keys from the default', async () => {
    const res = await t.patch('/api/v2/settings/authentication/', { OAUTH2_PROVIDER: { ACCESS_TOKEN_EXPIRE_SECONDS: 3600 } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.OAUTH2_PROVIDER, { ACCESS_TOKEN_EXPIRE_SECONDS: 3600, AUTHORIZATION_CODE_EXPIRE_SECONDS: 600, REFRESH_TOKEN_EXPIRE_SECONDS: 2628000 });
  });

  it('accepts settings of any category under all', async () => {
    const res = await t.patch('/api/v2/settings/all/', { SCHEDULE_MAX_JOBS: 20, SESSIONS_PER_USER: 5, OPA_ENABLED: true });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.SCHEDULE_MAX_JOBS, 20);
    assert.equal(res.body.SESSIONS_PER_USER, 5);
    assert.equal(t.services.settings.get('OPA_ENABLED'), true);
    assert.equal((await t.get('/api/v2/settings/authentication/')).body.SESSIONS_PER_USER, 5);
  });

  it('records each change in the activity stream in the same transaction', async () => {
    const res = await t.patch('/api/v2/settings/jobs/', { DEFAULT_JOB_TIMEOUT: 3600, SVC_COLLECTIONS_ENABLED: true });
    assert.equal(res.status, 200);
    const stream = await t.get('/api/v2/activity_stream/?object1=setting&order_by=-id');
    assert.equal(stream.status, 200);
    const [latest] = stream.body.results;
    assert.equal(latest.operation, 'update');
    assert.equal(latest.object1, 'setting');
    assert.equal(latest.actor, 1);
    // Only what changed: SVC_COLLECTIONS_ENABLED already was true.
    assert.deepEqual(latest.changes, { DEFAULT_JOB_TIMEOUT: [0, 3600] });
    const first = stream.body.results.at(-1);
    assert.deepEqual(first.changes.MAX_FORKS, [200, 50]);

    const before = stream.body.count;
    assert.equal((await t.patch('/api/v2/settings/jobs/', { MAX_FORKS: 'bad', DEFAULT_JOB_TIMEOUT: 7 })).status, 400);
    assert.equal((await t.get('/api/v2/activity_stream/?object1=setting')).body.count, before);
  });

  it('reads secrets back as $encrypted$, keeps them on $encrypted$, encrypts them at rest and hides them in the activity stream', async () => {
    const set = await t.patch('/api/v2/settings/test_secrets/', { TEST_BIND_DN: 'cn=svc', TEST_BIND_PASSWORD: 'hunter2' });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body, { TEST_BIND_DN: 'cn=svc', TEST_BIND_PASSWORD: '$encrypted$' });
    assert.equal(t.services.settings.get('TEST_BIND_PASSWORD'), 'hunter2');
    const [row] = await t.db.query(`SELECT value FROM settings WHERE key = 'TEST_BIND_PASSWORD'`);
    assert.ok(!JSON.stringify(row.value).includes('hunter2'));

    const keep = await t.patch('/api/v2/settings/test_secrets/', { TEST_BIND_DN: 'cn=other', TEST_BIND_PASSWORD: '$encrypted$' });
    assert.equal(keep.status, 200);
    assert.equal(t.services.settings.get('TEST_BIND_PASSWORD'), 'hunter2');
    assert.equal(t.services.settings.get('TEST_BIND_DN'), 'cn=other');

    const stream = await t.get('/api/v2/activity_stream/?object1=setting&order_by=-id');
    const withSecret = stream.body.results.find((r: { changes: Record<string, unknown> }) => 'TEST_BIND_PASSWORD' in r.changes);
    assert.deepEqual(withSecret.changes.TEST_BIND_PASSWORD, ['hidden', 'hidden']);
    assert.ok(!JSON.stringify(stream.body).includes('hunter2'));

    // PUT leaves out the secret: it is kept.
    const put = await t.put('/api/v2/settings/test_secrets/', { TEST_BIND_DN: 'cn=third' });
    assert.equal(put.status, 200);
    assert.equal(t.services.settings.get('TEST_BIND_PASSWORD'), 'hunter2');
  });

  it('describes each setting in OPTIONS', async () => {
    const res = await t.request('OPTIONS', '/api/v2/settings/logging/');
    assert.equal(res.status, 200);
    assert.equal(res.body.name, 'Logging Settings');
    assert.ok(res.body.description);
    assert.deepEqual(res.body.parses, ['application/json']);
    assert.match(String(res.headers.allow), /PATCH/);
    const level = res.body.actions.PUT.LOG_AGGREGATOR_LEVEL;
    assert.equal(level.type, 'choice');
    assert.equal(level.default, 'WARNING');
    assert.equal(level.required, true);
    assert.ok(level.label && level.help_text);
    assert.deepEqual(level.choices.map(([v]: [string]) => v), ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL']);
    const host = res.body.actions.GET.LOG_AGGREGATOR_HOST;
    assert.equal(host.type, 'string');
    assert.equal(host.default, null);
    assert.equal(host.allow_null, true);
    assert.equal(host.category_slug, 'logging');
    const jobs = await t.request('OPTIONS', '/api/v2/settings/jobs/');
    assert.equal(jobs.body.actions.GET.SVC_TASK_ENV.type, 'json');
    assert.equal(jobs.body.actions.GET.MAX_FORKS.default, 200);
    const secretOptions = await t.request('OPTIONS', '/api/v2/settings/test_secrets/');
    assert.equal(secretOptions.body.actions.GET.TEST_BIND_PASSWORD.type, 'string');
    assert.equal((await t.request('OPTIONS', '/api/v2/settings/nosuch/')).status, 404);
  });

  it('PUT replaces the category: settings left out return to their defaults', async () => {
    await t.patch('/api/v2/settings/jobs/', { SCHEDULE_MAX_JOBS: 15, PROJECT_UPDATE_VVV: true });
    const res = await t.put('/api/v2/settings/jobs/', { PROJECT_UPDATE_VVV: true, MAX_FORKS: 25 });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { ...DEFAULTS.jobs, PROJECT_UPDATE_VVV: true, MAX_FORKS: 25 });
  });

  it('DELETE resets the category to its defaults', async () => {
    const res = await t.delete('/api/v2/settings/jobs/');
    assert.equal(res.status, 204);
    assert.deepEqual((await t.get('/api/v2/settings/jobs/')).body, DEFAULTS.jobs);
    assert.equal(t.services.settings.get('MAX_FORKS'), 200);
    assert.equal(t.services.settings.source('MAX_FORKS'), 'default');
    const keys = await storedKeys(t);
    for (const name of Object.keys(DEFAULTS.jobs)) assert.ok(!keys.includes(name), name);
    // Other categories keep their values.
    assert.equal(t.services.settings.get('SESSIONS_PER_USER'), 5);
    const stream = await t.get('/api/v2/activity_stream/?object1=setting&order_by=-id');
    assert.deepEqual(stream.body.results[0].changes.MAX_FORKS, [25, 200]);
  });

  it('refuses changes from anyone but a superuser', async () => {
    const user = await t.createUser('settings-user');
    const auditor = await t.createUser('settings-auditor', { is_system_auditor: true });
    assert.equal((await t.get('/api/v2/settings/', { as: user })).status, 403);
    assert.equal((await t.get('/api/v2/settings/jobs/', { as: user })).status, 403);
    assert.equal((await t.patch('/api/v2/settings/jobs/', { MAX_FORKS: 1 }, { as: user })).status, 403);
    assert.equal((await t.delete('/api/v2/settings/jobs/', { as: user })).status, 403);

    assert.equal((await t.get('/api/v2/settings/jobs/', { as: auditor })).status, 200);
    assert.equal((await t.get('/api/v2/settings/', { as: auditor })).status, 200);
    assert.equal((await t.patch('/api/v2/settings/jobs/', { MAX_FORKS: 1 }, { as: auditor })).status, 403);
    assert.equal((await t.put('/api/v2/settings/jobs/', {}, { as: auditor })).status, 403);
    assert.equal((await t.delete('/api/v2/settings/jobs/', { as: auditor })).status, 403);
    const options = await t.request('OPTIONS', '/api/v2/settings/jobs/', { as: auditor });
    assert.equal(options.status, 200);
    assert.equal(options.body.actions.PUT, undefined);
    assert.ok(options.body.actions.GET.MAX_FORKS);

    assert.equal((await t.get('/api/v2/settings/', { as: null })).status, 401);
    assert.equal((await t.get('/api/v2/settings/jobs/', { as: null })).status, 401);
    assert.equal((await t.patch('/api/v2/settings/jobs/', { MAX_FORKS: 1 }, { as: null })).status, 401);
    assert.equal(t.services.settings.get('MAX_FORKS'), 200);
  });

  it('picks up writes by another node: at once on refresh, and in the background within seconds', async () => {
    await t.db.query(`INSERT INTO settings (key, value) VALUES ('SCHEDULE_MAX_JOBS', '33'::jsonb)`);
    await t.services.settings.refresh();
    assert.equal(t.services.settings.get('SCHEDULE_MAX_JOBS'), 33);

    await t.db.query(`UPDATE settings SET value = '44'::jsonb WHERE key = 'SCHEDULE_MAX_JOBS'`);
    await eventually(async () => t.services.settings.get('SCHEDULE_MAX_JOBS') === 44, 10_000, 'the background refresh');
    assert.equal(t.services.settings.get('SCHEDULE_MAX_JOBS'), 44);
  });
});

describe('AUTH_BASIC_ENABLED', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('turns basic authentication off at once', async () => {
    assert.equal((await t.get('/api/v2/me/')).status, 200);
    const res = await t.patch('/api/v2/settings/authentication/', { AUTH_BASIC_ENABLED: false });
    assert.equal(res.status, 200);
    assert.equal(res.body.AUTH_BASIC_ENABLED, false);
    assert.equal((await t.get('/api/v2/me/')).status, 401);
    assert.equal((await t.get('/api/v2/settings/authentication/')).status, 401);

    // Locked out of basic auth: turn it back on through the database.
    await t.db.query(`DELETE FROM settings WHERE key = 'AUTH_BASIC_ENABLED'`);
    await t.services.settings.refresh();
    assert.equal((await t.get('/api/v2/me/')).status, 200);
    assert.equal((await t.get('/api/v2/settings/authentication/')).body.AUTH_BASIC_ENABLED, true);
  });
});

describe('settings file', () => {
  let t: TestApp;
  let file: string;
  before(async () => {
    file = await tempFile(
      'settings.yaml',
      ['# site settings', 'MAX_FORKS: 50', 'LOG_AGGREGATOR_LEVEL: ERROR', 'REMOTE_HOST_HEADERS:', '  - HTTP_X_FORWARDED_FOR', 'SESSION_COOKIE_AGE: 600', 'LOG_AGGREGATOR_HOST: logs.example.com', ''].join('\n'),
    );
    t = await createTestApp({ SVC_SETTINGS_FILE: file });
  });
  after(() => t.close());

  it('layers default, then file, then database', async () => {
    const jobs = await t.get('/api/v2/settings/jobs/');
    assert.equal(jobs.body.MAX_FORKS, 50);
    assert.equal(jobs.body.SCHEDULE_MAX_JOBS, 10);
    assert.equal(t.services.settings.get('LOG_AGGREGATOR_LEVEL'), 'ERROR');
    assert.deepEqual(t.services.settings.get('REMOTE_HOST_HEADERS'), ['HTTP_X_FORWARDED_FOR']);
    assert.equal(t.services.settings.source('MAX_FORKS'), 'file');
    const options = await t.request('OPTIONS', '/api/v2/settings/jobs/');
    assert.equal(options.body.actions.GET.MAX_FORKS.defined_in_file, true);
    assert.equal(options.body.actions.GET.MAX_FORKS.default, 200);
    assert.equal(options.body.actions.GET.SCHEDULE_MAX_JOBS.defined_in_file, false);

    assert.equal((await t.patch('/api/v2/settings/jobs/', { MAX_FORKS: 75 })).status, 200);
    assert.equal(t.services.settings.get('MAX_FORKS'), 75);
    assert.equal(t.services.settings.source('MAX_FORKS'), 'database');

    assert.equal((await t.patch('/api/v2/settings/authentication/', { SESSION_COOKIE_AGE: 900 })).status, 200);
    assert.equal(t.services.settings.get('SESSION_COOKIE_AGE'), 900);
    // A null stored in the database overrides the file too.
    assert.equal(t.services.settings.get('LOG_AGGREGATOR_HOST'), 'logs.example.com');
    assert.equal((await t.patch('/api/v2/settings/logging/', { LOG_AGGREGATOR_HOST: null })).status, 200);
    assert.equal(t.services.settings.get('LOG_AGGREGATOR_HOST'), null);

    assert.equal((await t.delete('/api/v2/settings/jobs/')).status, 204);
    assert.equal(t.services.settings.get('MAX_FORKS'), 50);
    assert.equal((await t.get('/api/v2/settings/jobs/')).body.MAX_FORKS, 50);
    assert.equal(t.services.settings.get('SESSION_COOKIE_AGE'), 900);
  });

  it('reads JSON files too', async () => {
    const json = await tempFile('settings.json', JSON.stringify({ SCANNER_ENABLED: true, SCANNER_FAIL_MODE: 'closed', SVC_TASK_ENV: { A: 'b' } }));
    const settings = await loadSettings(t.db, { ...t.env, settingsFile: json }, settingRegistry());
    assert.equal(settings.get('SCANNER_FAIL_MODE'), 'closed');
    assert.equal(settings.get('SCANNER_ENABLED'), true);
    assert.deepEqual(settings.get('SVC_TASK_ENV'), { A: 'b' });
  });

  it('accepts an empty file', async () => {
    const empty = await tempFile('empty.yaml', '');
    const settings = await loadSettings(t.db, { ...t.env, settingsFile: empty }, settingRegistry());
    assert.equal(settings.get('SCANNER_FAIL_MODE'), 'open');
  });

  const bad: [string, string, string, RegExp][] = [
    ['an unknown name', 'unknown.yaml', 'MAX_FORKS: 5\nNO_SUCH_SETTING: 1\n', /NO_SUCH_SETTING: unknown setting/],
    ['a value of the wrong type', 'type.yaml', 'MAX_FORKS: lots\n', /MAX_FORKS: A valid integer is required/],
    ['a list where a mapping belongs', 'shape.yaml', 'SVC_TASK_ENV:\n  - A=1\n', /SVC_TASK_ENV: Expected a dictionary/],
    ['settings that contradict each other', 'rule.yaml', 'LOG_AGGREGATOR_ENABLED: true\n', /LOG_AGGREGATOR_ENABLED: Cannot enable log aggregator without providing host/],
    ['invalid YAML', 'broken.yaml', 'MAX_FORKS: [1,\n', /is not valid YAML/],
    ['invalid JSON', 'broken.json', '{"MAX_FORKS": ', /is not valid JSON/],
    ['a list at the top', 'list.yaml', '- MAX_FORKS\n', /must be a mapping/],
  ];
  for (const [what, name, content, message] of bad) {
    it(`refuses to start with ${what}, naming the file and the problem`, async () => {
      const badFile = await tempFile(name, content);
      await assert.rejects(loadSettings(t.db, { ...t.env, settingsFile: badFile }, settingRegistry()), (err: Error) => {
        assert.ok(err instanceof ConfigError, String(err));
        assert.ok(err.message.includes(badFile), err.message);
        assert.match(err.message, message);
        return true;
      });
    });
  }

  it('refuses to start when the file is missing', async () => {
    const missing = path.join(tmpdir(), 'drover-no-such-settings.yaml');
    await assert.rejects(loadSettings(t.db, { ...t.env, settingsFile: missing }, settingRegistry()), (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /cannot be read \(ENOENT\)/);
      return true;
    });
  });
});
