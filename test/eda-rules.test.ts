import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { sendEvent } from './helpers/eda.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

describe('event rules', () => {
  let t: TestApp;
  let org: number;
  let other: number;
  let template: number;
  let foreignTemplate: number;
  let notification: number;
  let orgAdmin: User;
  let auditor: User;
  let member: User;
  let otherAdmin: User;
  let serial = 0;

  const fields = (extra: Record<string, unknown> = {}) => ({
    name: `rule-${++serial}`, organization: org, webhook_path: `path-${serial}`,
    conditions: [{ jinja2_expression: 'event.severity == "critical"', description: 'critical only' }, { jinja2_expression: "headers['x-team'] == 'ops'", description: '' }],
    actions: [{ action_type: 'send_notification', target_id: notification, description: 'tell ops' }],
    ...extra,
  });
  const rule = async (extra: Record<string, unknown> = {}) => {
    const res = await t.post('/api/v2/event_rules/', fields(extra));
    assert.equal(res.status, 201, res.text);
    return res.body;
  };
  const count = async (table: string) => (await t.db.query<AnyRow>(`SELECT count(*)::int AS n FROM ${table}`))[0].n as number;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t)).id;
    other = (await newOrg(t)).id;
    const inventory = (await t.post('/api/v2/inventories/', { name: 'inv', organization: org })).body.id;
    const project = (await t.post('/api/v2/projects/', { name: 'p', organization: org, scm_type: '' })).body.id;
    const project2 = (await t.post('/api/v2/projects/', { name: 'p2', organization: other, scm_type: '' })).body.id;
    template = (await t.db.query<AnyRow>(
      "INSERT INTO job_templates (name, organization_id, project_id, inventory_id, playbook) VALUES ('jt', $1, $2, $3, 'x.yml') RETURNING id", [org, project, inventory],
    ))[0].id;
    foreignTemplate = (await t.db.query<AnyRow>("INSERT INTO job_templates (name, organization_id, project_id, playbook) VALUES ('theirs', $1, $2, 'x.yml') RETURNING id", [other, project2]))[0].id;
    notification = (await t.post('/api/v2/notification_templates/', { name: 'n', organization: org, notification_type: 'webhook', notification_configuration: { url: 'http://127.0.0.1:9/x', headers: {} } })).body.id;
    orgAdmin = await newUser(t, { admin: org });
    auditor = await newUser(t, { auditor: org });
    member = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: other });
  });
  after(() => t.close());

  it('creates a rule with a generated key that reads back only as $encrypted$, and a webhook_url', async () => {
    const created = await rule({ throttle_seconds: 30 });
    assert.equal(created.type, 'event_rule');
    assert.equal(created.webhook_key, '$encrypted$');
    assert.match(created.webhook_url, new RegExp(`/api/v2/eda_webhooks/${created.webhook_path}/$`));
    assert.equal(created.enabled, true);
    assert.equal(created.fire_count, 0);
    assert.equal(created.last_fired_at, null);
    assert.equal(created.source_type, 'webhook_generic');
    assert.deepEqual(created.actions, [{ action_type: 'send_notification', target_id: notification, extra_vars: {}, description: 'tell ops' }]);
    assert.equal(created.related.event_logs, `/api/v2/event_rules/${created.id}/event_logs/`);
    assert.equal(created.related.webhook_key, `/api/v2/event_rules/${created.id}/webhook_key/`);
    const key = (await t.get(`/api/v2/event_rules/${created.id}/webhook_key/`)).body.webhook_key;
    assert.ok(key.length >= 50, key);
    const [{ webhook_key: stored }] = await t.db.query<AnyRow>('SELECT webhook_key FROM event_rules WHERE id = $1', [created.id]);
    assert.ok(!stored.includes(key));
    const everywhere = JSON.stringify([(await t.get(`/api/v2/event_rules/${created.id}/`)).body, (await t.get('/api/v2/event_rules/')).body, (await t.get('/api/v2/activity_stream/')).body]);
    assert.ok(!everywhere.includes(key), 'the key is shown only at webhook_key/');
  });

  it('rotates the key: the old one no longer signs', async () => {
    const created = await rule({ conditions: [] });
    const old = (await t.get(`/api/v2/event_rules/${created.id}/webhook_key/`)).body.webhook_key;
    assert.equal((await sendEvent(t, created.webhook_path, old, { a: 1 })).status, 202);
    const rotated = await t.post(`/api/v2/event_rules/${created.id}/webhook_key/`);
    assert.equal(rotated.status, 201);
    assert.notEqual(rotated.body.webhook_key, old);
    assert.equal((await sendEvent(t, created.webhook_path, old, { a: 2 })).status, 403);
    assert.equal((await sendEvent(t, created.webhook_path, rotated.body.webhook_key, { a: 3 })).status, 202);
  });

  it('refuses bad rules with a message per field and stores nothing', async () => {
    const taken = await rule();
    const before = await count('event_rules');
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ webhook_path: 'has space' }, 'webhook_path', /slug/],
      [{ webhook_path: '../etc' }, 'webhook_path', /slug/],
      [{ webhook_path: taken.webhook_path }, 'webhook_path', /already exists/],
      [{ name: taken.name }, '__all__', /already exists/],
      [{ conditions: 'event.a' }, 'conditions', /list/],
      [{ conditions: [{ description: 'no expression' }] }, 'conditions', /Condition 1: jinja2_expression is required/],
      [{ conditions: [{ jinja2_expression: 'event.a ==' }] }, 'conditions', /Condition 1: Expression syntax error/],
      [{ conditions: [{ jinja2_expression: 'ok' }, { jinja2_expression: 'a }} {{ b' }] }, 'conditions', /Condition 2: .*single Jinja expression/],
      [{ conditions: [{ jinja2_expression: '1 %}{% for x in y %}' }] }, 'conditions', /Condition 1/],
      [{ actions: [] }, 'actions', /at least one action/],
      [{ actions: [{ action_type: 'run_shell', target_id: 1 }] }, 'actions', /Action 1: action_type must be one of/],
      [{ actions: [{ action_type: 'launch_job_template', target_id: 'x' }] }, 'actions', /Action 1: target_id/],
      [{ actions: [{ action_type: 'launch_job_template', target_id: template, extra_vars: [1] }] }, 'actions', /extra_vars must be an object/],
      [{ actions: [{ action_type: 'launch_job_template', target_id: 999999 }] }, 'actions', /There is no job template 999999 in the rule's organization/],
      [{ actions: [{ action_type: 'launch_job_template', target_id: foreignTemplate }] }, 'actions', new RegExp(`There is no job template ${foreignTemplate} in the rule's organization`)],
      [{ actions: [{ action_type: 'launch_workflow', target_id: template }] }, 'actions', /There is no workflow job template/],
      [{ source_type: 'carrier_pigeon' }, 'source_type', /not a valid choice/],
      [{ throttle_seconds: -1 }, 'throttle_seconds', /greater than or equal to 0/],
    ];
    for (const [extra, field, message] of cases) {
      const res = await t.post('/api/v2/event_rules/', fields(extra));
      assert.equal(res.status, 400, `${JSON.stringify(extra)}: ${res.text}`);
      assert.match(JSON.stringify(res.body[field]), message, `${JSON.stringify(extra)}: ${res.text}`);
    }
    assert.equal(await count('event_rules'), before);
    const patched = await t.patch(`/api/v2/event_rules/${taken.id}/`, { actions: [{ action_type: 'launch_job_template', target_id: foreignTemplate }] });
    assert.equal(patched.status, 400);
  });

  it('lets organization admins manage rules, auditors read them, and nobody else see them', async () => {
    const mine = await rule();
    const asAdmin = await t.post('/api/v2/event_rules/', fields(), { as: orgAdmin });
    assert.equal(asAdmin.status, 201, asAdmin.text);
    assert.equal((await t.patch(`/api/v2/event_rules/${mine.id}/`, { description: 'edited' }, { as: orgAdmin })).status, 200);
    assert.equal((await t.get(`/api/v2/event_rules/${mine.id}/webhook_key/`, { as: orgAdmin })).status, 200);
    assert.equal((await t.post(`/api/v2/event_rules/${mine.id}/disable/`, {}, { as: orgAdmin })).body.enabled, false);
    assert.equal((await t.post(`/api/v2/event_rules/${mine.id}/enable/`, {}, { as: orgAdmin })).body.enabled, true);

    assert.equal((await t.get(`/api/v2/event_rules/${mine.id}/`, { as: auditor })).status, 200);
    assert.equal((await t.get(`/api/v2/event_rules/${mine.id}/webhook_key/`, { as: auditor })).status, 403);
    assert.equal((await t.patch(`/api/v2/event_rules/${mine.id}/`, { description: 'x' }, { as: auditor })).status, 403);
    assert.equal((await t.post(`/api/v2/event_rules/${mine.id}/test/`, { payload: {} }, { as: auditor })).status, 403);

    for (const [who, user] of [['member', member], ['other org admin', otherAdmin]] as const) {
      assert.equal((await t.get('/api/v2/event_rules/', { as: user })).body.count, 0, who);
      assert.equal((await t.get(`/api/v2/event_rules/${mine.id}/`, { as: user })).status, 403, who);
      assert.equal((await t.get(`/api/v2/event_rules/${mine.id}/webhook_key/`, { as: user })).status, 403, who);
      assert.equal((await t.post(`/api/v2/event_rules/${mine.id}/webhook_key/`, {}, { as: user })).status, 403, who);
      assert.equal((await t.patch(`/api/v2/event_rules/${mine.id}/`, { enabled: false }, { as: user })).status, 403, who);
      assert.equal((await t.post(`/api/v2/event_rules/${mine.id}/disable/`, {}, { as: user })).status, 403, who);
      assert.equal((await t.post(`/api/v2/event_rules/${mine.id}/test/`, { payload: {} }, { as: user })).status, 403, who);
      assert.equal((await t.delete(`/api/v2/event_rules/${mine.id}/`, { as: user })).status, 403, who);
      assert.equal((await t.get(`/api/v2/event_rules/${mine.id}/event_logs/`, { as: user })).status, 403, who);
      assert.equal((await t.post('/api/v2/event_rules/', fields(), { as: user })).status, 403, who);
    }
    // Another organization's admin may not aim a rule of his own at this organization's templates.
    const aimed = await t.post('/api/v2/event_rules/', fields({ organization: other, actions: [{ action_type: 'launch_job_template', target_id: template }] }), { as: otherAdmin });
    assert.equal(aimed.status, 400, aimed.text);
    assert.match(JSON.stringify(aimed.body.actions), /There is no job template/);
    // Nor move a rule of this organization into his.
    assert.equal((await t.patch(`/api/v2/event_rules/${mine.id}/`, { organization: other }, { as: otherAdmin })).status, 403);
    const [{ enabled, organization_id }] = await t.db.query<AnyRow>('SELECT enabled, organization_id FROM event_rules WHERE id = $1', [mine.id]);
    assert.equal(enabled, true);
    assert.equal(organization_id, org);
  });

  it('dry-runs conditions over a payload without launching anything', async () => {
    const created = await rule({ throttle_seconds: 0 });
    const jobs = await count('unified_jobs');
    const notifications = await count('notifications');
    const res = await t.post(`/api/v2/event_rules/${created.id}/test/`, { payload: { severity: 'critical' }, headers: { 'X-Team': 'dev' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {
      matched: false,
      would_fire: false,
      condition_results: [
        { expression: 'event.severity == "critical"', description: 'critical only', matched: true },
        { expression: "headers['x-team'] == 'ops'", description: '', matched: false },
      ],
      actions: created.actions,
    });
    const both = await t.post(`/api/v2/event_rules/${created.id}/test/`, { payload: { severity: 'critical' }, headers: { 'x-team': 'ops' } });
    assert.equal(both.body.matched, true);
    assert.equal(both.body.would_fire, true);
    const tried = await t.post(`/api/v2/event_rules/${created.id}/test/`, {
      payload: { n: 3 }, conditions: [{ jinja2_expression: 'event.n > 2' }, { jinja2_expression: 'event.missing | length > 0', description: 'errors' }],
    });
    assert.equal(tried.status, 200, tried.text);
    assert.equal(tried.body.condition_results[0].matched, true);
    assert.equal(tried.body.condition_results[1].matched, false);
    assert.match(tried.body.condition_results[1].error, /Template error/);
    assert.equal(tried.body.matched, false);
    await t.post(`/api/v2/event_rules/${created.id}/disable/`);
    assert.equal((await t.post(`/api/v2/event_rules/${created.id}/test/`, { payload: { severity: 'critical' }, headers: { 'x-team': 'ops' } })).body.would_fire, false);
    const notAnEvent = ['Expected a JSON object: the event as the sender would post it.'];
    const refusals: [unknown, Record<string, unknown>][] = [
      [{}, { payload: ['This field is required.'] }],
      [{ payload: [1] }, { payload: notAnEvent }],
      [{ payload: 'text' }, { payload: notAnEvent }],
      [{ payload: {}, headers: 'x' }, { headers: ['Expected a JSON object of header names and values.'] }],
      [['payload'], { detail: 'Invalid data. Expected a dictionary, but got list.' }],
    ];
    for (const [body, answer] of refusals) {
      const bad = await t.post(`/api/v2/event_rules/${created.id}/test/`, body);
      assert.deepEqual([bad.status, bad.body], [400, answer], JSON.stringify(body));
    }
    const badCondition = await t.post(`/api/v2/event_rules/${created.id}/test/`, { payload: {}, conditions: [{ jinja2_expression: '{{' }] });
    assert.equal(badCondition.status, 400, badCondition.text);
    assert.deepEqual(Object.keys(badCondition.body), ['conditions']);
    assert.equal(await count('unified_jobs'), jobs);
    assert.equal(await count('notifications'), notifications);
  });

  it('keeps Jinja inside the sandbox: escape attempts do not match and say why, a runaway is stopped', async () => {
    const created = await rule();
    const attempts = [
      "''.__class__.__mro__[1].__subclasses__()",
      'event.__class__.__init__.__globals__',
      'cycler.__init__.__globals__.os.popen("id").read()',
      "lipsum.__globals__['os'].system('touch /tmp/eda-pwned')",
      'self._TemplateReference__context',
      "config.items()",
      "event.constructor.constructor('return process')()",
      'range(100000000) | length > 0',
      "(range(3000) | map('string') | join(',')) * 100000 != ''",
    ];
    const res = await t.post(`/api/v2/event_rules/${created.id}/test/`, { payload: { a: 1 }, conditions: attempts.map((jinja2_expression) => ({ jinja2_expression })) });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.matched, false);
    for (const result of res.body.condition_results) assert.equal(result.matched, false, result.expression);
    const stopped = res.body.condition_results.slice(-2);
    for (const result of stopped) assert.match(result.error ?? '', /longer than|memory|error/i, result.expression);
    const loop = await t.post(`/api/v2/event_rules/${created.id}/test/`, { payload: {}, conditions: [{ jinja2_expression: 'range(2000000) | reverse | first > 0' }] });
    assert.equal(loop.status, 200);
    assert.match(loop.body.condition_results[0].error ?? '', /longer than 1000 ms|memory/);
    assert.equal((await t.post(`/api/v2/event_rules/${created.id}/test/`, { payload: { severity: 'critical' }, headers: { 'x-team': 'ops' } })).body.matched, true, 'the sandbox still works');
  });
});
