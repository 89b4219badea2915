// AWX's setting names beside the spec's (AWX_TASK_ENV = SVC_TASK_ENV...), AWX 24's other settings
// and categories, as the awx.awx collection's settings module and awxkit use them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../src/config/env.ts';
import { loadSettings } from '../src/config/settings/store.ts';
import { ADMIN, createTestApp, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';

const ALIASES = [
  ['jobs', 'AWX_TASK_ENV', 'SVC_TASK_ENV', { HTTPS_PROXY: 'http://proxy.example.com:3128' }],
  ['jobs', 'AWX_ROLES_ENABLED', 'SVC_ROLES_ENABLED', false],
  ['jobs', 'AWX_COLLECTIONS_ENABLED', 'SVC_COLLECTIONS_ENABLED', false],
  ['system', 'TOWER_URL_BASE', 'SVC_URL_BASE', 'https://drover.example.com'],
] as const;

const storedRows = async (t: TestApp) => t.db.query<{ key: string; value: unknown }>('SELECT key, value FROM settings ORDER BY key');
const settingEntries = async (t: TestApp) => (await t.get('/api/v2/activity_stream/?object1=setting&order_by=-id&page_size=200')).body.results;

describe('AWX setting names', () => {
  let t: TestApp;
  let member: User;
  let orgAdmin: User;
  before(async () => {
    t = await createTestApp();
    const org = await newOrg(t);
    member = await newUser(t, { member: org });
    orgAdmin = await newUser(t, { admin: org });
  });
  after(() => t.close());

  it("the collection's pattern: GET all/, PATCH all/ with AWX's names, then the SVC_ names read the same", async () => {
    const all = await t.get('/api/v2/settings/all/');
    assert.equal(all.status, 200);
    for (const [, awx, svc] of ALIASES) {
      assert.ok(awx in all.body, `${awx} is in all/`);
      assert.deepEqual(all.body[awx], all.body[svc], awx);
    }
    const env = await t.patch('/api/v2/settings/all/', { AWX_TASK_ENV: { HTTPS_PROXY: 'http://proxy:3128', RETRIES: 3 } });
    assert.equal(env.status, 200, env.text);
    assert.deepEqual(env.body.AWX_TASK_ENV, { HTTPS_PROXY: 'http://proxy:3128', RETRIES: '3' });
    const roles = await t.patch('/api/v2/settings/all/', { AWX_ROLES_ENABLED: false });
    assert.equal(roles.status, 200, roles.text);
    assert.equal(roles.body.AWX_ROLES_ENABLED, false);

    const jobs = (await t.get('/api/v2/settings/jobs/')).body;
    assert.deepEqual(jobs.SVC_TASK_ENV, { HTTPS_PROXY: 'http://proxy:3128', RETRIES: '3' });
    assert.deepEqual(jobs.AWX_TASK_ENV, jobs.SVC_TASK_ENV);
    assert.equal(jobs.SVC_ROLES_ENABLED, false);
    assert.equal(jobs.AWX_ROLES_ENABLED, false);
    // What the service itself reads changed too: one value, stored once under the spec's name.
    assert.deepEqual(t.services.settings.get('SVC_TASK_ENV'), { HTTPS_PROXY: 'http://proxy:3128', RETRIES: '3' });
    assert.equal(t.services.settings.get('SVC_ROLES_ENABLED'), false);
    const keys = (await storedRows(t)).map((r) => r.key);
    assert.ok(keys.includes('SVC_TASK_ENV') && keys.includes('SVC_ROLES_ENABLED'));
    assert.ok(!keys.some((k) => k.startsWith('AWX_') && ['AWX_TASK_ENV', 'AWX_ROLES_ENABLED'].includes(k)), keys.join());
    await t.delete('/api/v2/settings/jobs/');
  });

  for (const [slug, awx, svc, value] of ALIASES) {
    it(`${awx} and ${svc}: a write under either name changes both, in ${slug}/ and all/`, async () => {
      for (const [written, other] of [[awx, svc], [svc, awx]]) {
        const res = await t.patch(`/api/v2/settings/${slug}/`, { [written]: value });
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body[other], value, `${other} after writing ${written}`);
        const all = (await t.get('/api/v2/settings/all/')).body;
        assert.deepEqual(all[awx], value);
        assert.deepEqual(all[svc], value);
        assert.equal((await t.delete(`/api/v2/settings/${slug}/`)).status, 204);
        const reset = (await t.get(`/api/v2/settings/${slug}/`)).body;
        assert.deepEqual(reset[awx], reset[svc]);
        assert.notDeepEqual(reset[awx], value);
      }
    });
  }

  it('records one change in the activity stream and the audit log, under the stored name', async () => {
    const beforeEntries = (await settingEntries(t)).length;
    const [{ n: auditsBefore }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_events WHERE event_type = 'setting.changed'`);
    const res = await t.patch('/api/v2/settings/all/', { AWX_TASK_ENV: { A: '1' }, SVC_TASK_ENV: { A: '1' } });
    assert.equal(res.status, 200, res.text);
    const entries = await settingEntries(t);
    assert.equal(entries.length, beforeEntries + 1);
    assert.deepEqual(entries[0].changes, { SVC_TASK_ENV: [{}, { A: '1' }] });
    const [{ n: auditsAfter }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_events WHERE event_type = 'setting.changed'`);
    assert.equal(auditsAfter, auditsBefore + 1);
    await t.delete('/api/v2/settings/jobs/');
  });

  it('refuses both names with different values, and stores nothing', async () => {
    const before = await storedRows(t);
    const res = await t.patch('/api/v2/settings/all/', { SVC_ROLES_ENABLED: true, AWX_ROLES_ENABLED: false, MAX_FORKS: 7 });
    assert.equal(res.status, 400);
    assert.match(res.body.AWX_ROLES_ENABLED[0], /same setting/);
    assert.deepEqual(await storedRows(t), before);
  });

  it('refuses a bad value under an AWX name with 400 and changes nothing', async () => {
    const before = await storedRows(t);
    for (const body of [
      { AWX_TASK_ENV: ['A=1'] },
      { AWX_TASK_ENV: { A: { nested: true } } },
      { AWX_ROLES_ENABLED: 'perhaps' },
      { TOWER_URL_BASE: 'drover.example.com' },
      { AWX_ISOLATION_SHOW_PATHS: ['relative/dir'] },
      { AWX_ISOLATION_SHOW_PATHS: ['/a:/b:bogus'] },
      { STDOUT_MAX_BYTES_DISPLAY: -1 },
      { CSRF_TRUSTED_ORIGINS: ['drover.example.com'] },
      { CUSTOM_LOGO: 'data:image/png;base64,abc' },
      { MAX_UI_JOB_EVENTS: 99 },
      { AUTOMATION_ANALYTICS_GATHER_INTERVAL: 60 },
      { CUSTOM_VENV_PATHS: ['/no/such/venv'] },
    ]) {
      const res = await t.patch('/api/v2/settings/all/', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(Array.isArray(res.body[Object.keys(body)[0]]), res.text);
    }
    assert.deepEqual(await storedRows(t), before);
  });

  it('refuses writes to read-only settings', async () => {
    for (const body of [{ INSTALL_UUID: 'x' }, { NAMED_URL_FORMATS: {} }, { PENDO_TRACKING_STATE: 'detailed' }, { LICENSE: { a: 1 } }, { IS_K8S: true }]) {
      const res = await t.patch('/api/v2/settings/all/', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    }
    assert.equal((await t.get('/api/v2/settings/system/')).body.INSTALL_UUID, t.services.installUuid);
  });

  it('PUT keeps a setting given under its AWX name', async () => {
    const current = (await t.get('/api/v2/settings/jobs/')).body;
    const body = { ...current, AWX_TASK_ENV: { B: '2' } };
    delete body.SVC_TASK_ENV;
    const res = await t.put('/api/v2/settings/jobs/', body);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.SVC_TASK_ENV, { B: '2' });
    await t.delete('/api/v2/settings/jobs/');
  });

  it('describes both names in OPTIONS', async () => {
    const res = await t.request('OPTIONS', '/api/v2/settings/jobs/');
    assert.equal(res.status, 200);
    for (const name of ['AWX_TASK_ENV', 'SVC_TASK_ENV', 'AWX_ROLES_ENABLED', 'SVC_COLLECTIONS_ENABLED']) {
      assert.ok(res.body.actions.GET[name], name);
      assert.ok(res.body.actions.PUT[name], name);
    }
    assert.equal(res.body.actions.GET.AWX_TASK_ENV.type, res.body.actions.GET.SVC_TASK_ENV.type);
    assert.match(res.body.actions.GET.AWX_TASK_ENV.help_text, /SVC_TASK_ENV/);
    const system = await t.request('OPTIONS', '/api/v2/settings/system/');
    assert.equal(system.body.actions.GET.INSTALL_UUID.read_only, true);
    assert.ok(!('INSTALL_UUID' in system.body.actions.PUT));
  });

  it('changed answers only the settings that differ from their default, under both names', async () => {
    assert.deepEqual((await t.get('/api/v2/settings/changed/')).body, {});
    await t.patch('/api/v2/settings/all/', { AWX_TASK_ENV: { C: '3' }, MAX_FORKS: 10, UI_LIVE_UPDATES_ENABLED: false });
    // Stored but equal to its default: not a change.
    await t.patch('/api/v2/settings/all/', { SCHEDULE_MAX_JOBS: 10 });
    const changed = await t.get('/api/v2/settings/changed/');
    assert.equal(changed.status, 200);
    assert.deepEqual(changed.body, { SVC_TASK_ENV: { C: '3' }, AWX_TASK_ENV: { C: '3' }, MAX_FORKS: 10, UI_LIVE_UPDATES_ENABLED: false });
    const categories = (await t.get('/api/v2/settings/')).body.results.map((c: { slug: string }) => c.slug);
    for (const slug of ['all', 'changed', 'ui', 'named-url', 'debug', 'bulk']) assert.ok(categories.includes(slug), slug);
    await t.delete('/api/v2/settings/all/');
    assert.deepEqual((await t.get('/api/v2/settings/changed/')).body, {});
  });

  it('answers the ui, bulk and debug categories with AWX defaults, and the API root shows the login info and logo', async () => {
    assert.deepEqual((await t.get('/api/v2/settings/bulk/')).body, { BULK_JOB_MAX_LAUNCH: 100, BULK_HOST_MAX_CREATE: 100, BULK_HOST_MAX_DELETE: 250 });
    const logo = 'data:image/gif;base64,R0lGODlhAQABAIABAP///wAAACwAAAAAAQABAAACAkQBADs=';
    const res = await t.patch('/api/v2/settings/ui/', { CUSTOM_LOGO: logo, CUSTOM_LOGIN_INFO: 'Authorized use only.' });
    assert.equal(res.status, 200, res.text);
    const root = await t.get('/api/', { as: null });
    assert.equal(root.body.custom_logo, logo);
    assert.equal(root.body.custom_login_info, 'Authorized use only.');
    await t.delete('/api/v2/settings/ui/');
    assert.equal((await t.get('/api/', { as: null })).body.custom_logo, '');
  });

  it('named-url answers the formats and graph made from the resources', async () => {
    const res = await t.get('/api/v2/settings/named-url/');
    assert.equal(res.status, 200);
    const { NAMED_URL_FORMATS: formats, NAMED_URL_GRAPH_NODES: nodes } = res.body;
    assert.equal(formats.organizations, '<name>');
    assert.equal(formats.teams, '<name>++<organization.name>');
    assert.equal(formats.hosts, '<name>++<inventory.name>++<organization.name>');
    assert.equal(formats.users, '<username>');
    assert.deepEqual(nodes.teams, { fields: ['name'], adj_list: [['organization', 'organizations']] });
    assert.deepEqual(nodes.organizations, { fields: ['name'], adj_list: [] });
    // A format names a URL that resolves.
    const team = await t.post('/api/v2/teams/', { name: 'Named Ops', organization: (await newOrg(t, { name: 'Named Org' })).id });
    assert.equal((await t.get('/api/v2/teams/Named Ops++Named Org/')).body.id, team.body.id);
  });

  it('a plain user and an organization admin can neither read nor change settings', async () => {
    const before = await storedRows(t);
    for (const who of [member, orgAdmin]) {
      for (const slug of ['all', 'changed', 'jobs', 'system', 'ui', 'named-url']) {
        assert.equal((await t.get(`/api/v2/settings/${slug}/`, { as: who })).status, 403, `${who.username} GET ${slug}`);
        assert.equal((await t.patch(`/api/v2/settings/${slug}/`, { AWX_TASK_ENV: { X: '1' } }, { as: who })).status, 403, `${who.username} PATCH ${slug}`);
      }
      assert.equal((await t.put('/api/v2/settings/jobs/', { AWX_ROLES_ENABLED: false }, { as: who })).status, 403);
      assert.equal((await t.delete('/api/v2/settings/all/', { as: who })).status, 403);
    }
    assert.deepEqual(await storedRows(t), before);
  });
});

describe("AWX's settings Drover honours", () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('CSRF_TRUSTED_ORIGINS trusts more origins for session writes', async () => {
    const s = await t.login(ADMIN);
    const origin = 'https://console.example.com';
    const refused = await s.post('/api/v2/organizations/', { name: 'From the console' }, { origin });
    assert.equal(refused.status, 403);
    assert.equal((await t.patch('/api/v2/settings/system/', { CSRF_TRUSTED_ORIGINS: [origin] })).status, 200);
    assert.equal((await s.post('/api/v2/organizations/', { name: 'From the console' }, { origin })).status, 201);
    await t.delete('/api/v2/settings/system/');
    assert.equal((await s.post('/api/v2/organizations/', { name: 'From the console again' }, { origin })).status, 403);
  });

  it('STDOUT_MAX_BYTES_DISPLAY and EVENT_STDOUT_MAX_BYTES_DISPLAY limit what stdout/ and the events show', async () => {
    const [run] = await t.db.query<{ id: number }>(`INSERT INTO unified_jobs (kind, name, status) VALUES ('job', 'Long output', 'successful') RETURNING id`);
    const long = 'x'.repeat(3000);
    await t.db.query(`INSERT INTO unified_job_events (unified_job_id, counter, event, stdout, start_line, end_line) VALUES ($1, 1, 'runner_on_ok', $2, 0, 1)`, [run.id, long]);
    const eventStdout = async () => (await t.get(`/api/v2/jobs/${run.id}/job_events/`)).body.results[0].stdout as string;
    assert.equal((await eventStdout()).length, 1024);
    assert.equal((await t.get(`/api/v2/jobs/${run.id}/stdout/?format=json`)).body.content, `${long}\n`);

    assert.equal((await t.patch('/api/v2/settings/jobs/', { EVENT_STDOUT_MAX_BYTES_DISPLAY: 100, STDOUT_MAX_BYTES_DISPLAY: 1000 })).status, 200);
    assert.equal((await eventStdout()).length, 100);
    const json = await t.get(`/api/v2/jobs/${run.id}/stdout/?format=json`);
    assert.match(json.body.content, /^Standard Output too large to display \(3001 bytes\), only download supported for sizes over 1000 bytes\.$/);
    assert.match((await t.get(`/api/v2/jobs/${run.id}/stdout/?format=txt`)).text, /too large to display/);
    assert.equal((await t.get(`/api/v2/jobs/${run.id}/stdout/?format=txt_download`)).text, `${long}\n`);
    await t.delete('/api/v2/settings/jobs/');
  });
});

describe('AWX setting names in the settings file', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const file = async (content: string) => {
    const f = path.join(await mkdtemp(path.join(tmpdir(), 'drover-aliases-')), 'settings.yaml');
    await writeFile(f, content);
    return f;
  };

  it('accepts an AWX name and refuses both names with different values or a read-only setting', async () => {
    const settings = await loadSettings(t.db, { ...t.env, settingsFile: await file('AWX_TASK_ENV:\n  A: b\nTOWER_URL_BASE: https://x.example.com\n') }, t.services.settings.registry);
    assert.deepEqual(settings.get('SVC_TASK_ENV'), { A: 'b' });
    assert.equal(settings.get('TOWER_URL_BASE'), 'https://x.example.com');
    assert.equal(settings.source('AWX_TASK_ENV'), 'file');
    await assert.rejects(
      loadSettings(t.db, { ...t.env, settingsFile: await file('AWX_ROLES_ENABLED: false\nSVC_ROLES_ENABLED: true\n') }, t.services.settings.registry),
      (err: Error) => err instanceof ConfigError && /SVC_ROLES_ENABLED: same setting as AWX_ROLES_ENABLED/.test(err.message),
    );
    await assert.rejects(loadSettings(t.db, { ...t.env, settingsFile: await file('INSTALL_UUID: x\n') }, t.services.settings.registry), /INSTALL_UUID: read-only setting/);
  });
});

describe("the policy engine timeout's two names (POLICY_ENGINE_EVALUATION_TIMEOUT_MS = OPA_EVALUATION_TIMEOUT_MS)", () => {
  const ALIAS = 'POLICY_ENGINE_EVALUATION_TIMEOUT_MS';
  const SETTING = 'OPA_EVALUATION_TIMEOUT_MS';
  let t: TestApp;
  let member: User;
  let orgAdmin: User;
  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    const org = await newOrg(t);
    member = await newUser(t, { member: org });
    orgAdmin = await newUser(t, { admin: org });
  });
  after(() => t.close());
  const security = async () => (await t.get('/api/v2/settings/security/')).body;

  it('both names answer the default, in security/ and all/, the alias right after the setting', async () => {
    const body = await security();
    assert.equal(body[ALIAS], 2000);
    assert.equal(body[SETTING], 2000);
    const names = Object.keys(body);
    assert.equal(names.indexOf(ALIAS), names.indexOf(SETTING) + 1);
    const all = (await t.get('/api/v2/settings/all/')).body;
    assert.equal(all[ALIAS], 2000);
  });

  for (const [slug, written, other] of [['security', ALIAS, SETTING], ['security', SETTING, ALIAS], ['all', ALIAS, SETTING], ['all', SETTING, ALIAS]]) {
    it(`PATCH ${slug}/ with ${written}: both names read it, the engine's timeout is it, stored once under ${SETTING}`, async () => {
      const res = await t.patch(`/api/v2/settings/${slug}/`, { [written]: 750 });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body[other], 750);
      const body = await security();
      assert.equal(body[ALIAS], 750);
      assert.equal(body[SETTING], 750);
      assert.equal(t.services.settings.get(SETTING), 750);
      assert.equal(t.services.settings.get(ALIAS), 750);
      assert.deepEqual(await storedRows(t), [{ key: SETTING, value: 750 }]);
      assert.equal((await t.delete('/api/v2/settings/security/')).status, 204);
      assert.equal((await security())[ALIAS], 2000);
    });
  }

  it('PUT takes the alias in place of the setting', async () => {
    const body = await security();
    delete body[SETTING];
    const res = await t.put('/api/v2/settings/security/', { ...body, [ALIAS]: 900 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body[SETTING], 900);
    assert.equal((await t.delete('/api/v2/settings/security/')).status, 204);
  });

  it('refuses a bad value under the alias, or both names with different values, and stores nothing', async () => {
    await t.patch('/api/v2/settings/security/', { [SETTING]: 1500 });
    const before = await storedRows(t);
    for (const body of [{ [ALIAS]: 99 }, { [ALIAS]: 30_001 }, { [ALIAS]: 'soon' }, { [ALIAS]: null }, { [SETTING]: 1000, [ALIAS]: 1200 }]) {
      const res = await t.patch('/api/v2/settings/all/', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.ok(Array.isArray(res.body[ALIAS]), res.text);
    }
    // The name given second is the one refused.
    const both = await t.patch('/api/v2/settings/security/', { [ALIAS]: 1000, [SETTING]: 1200 });
    assert.equal(both.status, 400);
    assert.deepEqual(both.body, { [SETTING]: [`${SETTING} and ${ALIAS} are the same setting; give it one value.`] });
    assert.deepEqual(await storedRows(t), before);
    assert.equal(t.services.settings.get(ALIAS), 1500);
    const same = await t.patch('/api/v2/settings/security/', { [ALIAS]: 1100, [SETTING]: 1100 });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.body[ALIAS], 1100);
    assert.equal((await t.delete('/api/v2/settings/security/')).status, 204);
  });

  it('OPTIONS describes the alias as other aliases are described: the same field, alias_of and a help text naming the setting', async () => {
    const res = await t.request('OPTIONS', '/api/v2/settings/security/');
    assert.equal(res.status, 200);
    for (const action of ['GET', 'PUT']) {
      const alias = res.body.actions[action][ALIAS];
      const setting = res.body.actions[action][SETTING];
      assert.ok(alias && setting, action);
      assert.equal(alias.alias_of, SETTING);
      assert.equal(setting.alias_of, undefined);
      for (const key of ['type', 'label', 'default', 'unit', 'category_slug']) assert.deepEqual(alias[key], setting[key], `${action} ${key}`);
      assert.ok(alias.help_text.startsWith(setting.help_text), alias.help_text);
      assert.match(alias.help_text, /other name of OPA_EVALUATION_TIMEOUT_MS: both names read and change the same value\./);
      assert.doesNotMatch(alias.help_text, /AWX/);
    }
    const all = await t.request('OPTIONS', '/api/v2/settings/all/');
    assert.equal(all.body.actions.GET[ALIAS].alias_of, SETTING);
  });

  it('a plain user and an organization admin can neither read nor change it under either name', async () => {
    for (const who of [member, orgAdmin]) {
      for (const name of [ALIAS, SETTING]) {
        assert.equal((await t.get('/api/v2/settings/security/', { as: who })).status, 403);
        assert.equal((await t.patch('/api/v2/settings/security/', { [name]: 100 }, { as: who })).status, 403, `${who.username} ${name}`);
        assert.equal((await t.patch('/api/v2/settings/all/', { [name]: 100 }, { as: who })).status, 403, `${who.username} ${name}`);
      }
    }
    assert.deepEqual(await storedRows(t), []);
    assert.equal(t.services.settings.get(SETTING), 2000);
  });

  it('the settings file takes either name, and refuses both with different values', async () => {
    const file = async (content: string) => {
      const f = path.join(await mkdtemp(path.join(tmpdir(), 'drover-aliases-')), 'settings.yaml');
      await writeFile(f, content);
      return f;
    };
    const settings = await loadSettings(t.db, { ...t.env, settingsFile: await file(`${ALIAS}: 400\n`) }, t.services.settings.registry);
    assert.equal(settings.get(SETTING), 400);
    assert.equal(settings.get(ALIAS), 400);
    assert.equal(settings.source(SETTING), 'file');
    await assert.rejects(
      loadSettings(t.db, { ...t.env, settingsFile: await file(`${SETTING}: 400\n${ALIAS}: 500\n`) }, t.services.settings.registry),
      (err: Error) => err instanceof ConfigError && new RegExp(`${ALIAS}: same setting as ${SETTING}`).test(err.message),
    );
    await assert.rejects(loadSettings(t.db, { ...t.env, settingsFile: await file(`${ALIAS}: 50\n`) }, t.services.settings.registry), new RegExp(ALIAS));
  });
});
