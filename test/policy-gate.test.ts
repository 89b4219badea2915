import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { refusingUrl, startOpaServer, type DataAnswer, type OpaServer } from './helpers/opa-server.ts';
import { assertAuthors } from './helpers/authors.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const CONTEXT_KEYS = [
  'client_ip', 'credentials', 'extra_vars', 'inventory', 'now_iso', 'organization_id', 'organization_name', 'playbook',
  'resource_id', 'resource_name', 'resource_type', 'trigger', 'user',
];

/**
 * The policy gate at launch: every result shape of the engine, the organization's cap, fail mode
 * when the engine is down, which policies apply, and the launch paths that pass through it. No
 * dispatcher runs: an allowed launch is checked by the run it stored.
 */
describe('policy gate', () => {
  let t: TestApp;
  let opa: OpaServer;
  let org: number;
  let other: number;
  let inventory: number;
  let template: number;
  let workflow: number;
  let orgAdmin: User;
  let otherAdmin: User;
  let member: User;
  let serial = 0;

  const security = async (values: Record<string, unknown>) => {
    const res = await t.patch('/api/v2/settings/security/', values);
    assert.equal(res.status, 200, res.text);
  };
  const enforcement = async (organization: number, value: string) =>
    assert.equal((await t.patch(`/api/v2/organizations/${organization}/`, { policy_enforcement: value })).status, 200);
  /** A policy of the organization (unless given) answering `answer` at its own package path, in its organization's namespace. */
  const policy = async (answer: DataAnswer, extra: Record<string, unknown> = {}) => {
    const organization = 'organization' in extra ? extra.organization : org;
    const path = `${organization === null ? 'gate' : `drover.org_${organization}`}.p${++serial}`;
    const res = await t.post('/api/v2/policies/', { name: `gate-${serial}`, organization, rego_module: `package ${path}`, package_path: path, ...extra });
    assert.equal(res.status, 201, res.text);
    opa.answer(path.replace(/\./g, '/'), answer);
    return res.body;
  };
  const runCount = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM unified_jobs'))[0].n;
  const decisions = async (query = '') => (await t.get(`/api/v2/policy_decisions/?order_by=id&page_size=200${query}`)).body.results;
  const launchJob = (body: Record<string, unknown> = {}, as?: User) => t.post(`/api/v2/job_templates/${template}/launch/`, body, as ? { as } : {});
  const adHoc = () => t.post('/api/v2/ad_hoc_commands/', { inventory, module_name: 'ping' });

  before(async () => {
    opa = await startOpaServer();
    t = await createTestApp({}, { dispatcher: false });
    await security({ OPA_ENABLED: true, OPA_SERVER_URL: opa.url, OPA_EVALUATION_TIMEOUT_MS: 300, OPA_FAIL_MODE: 'allow' });
    org = (await newOrg(t, { policy_enforcement: 'enforce' })).id;
    other = (await newOrg(t, { policy_enforcement: 'enforce' })).id;
    inventory = (await t.post('/api/v2/inventories/', { name: 'gate-inv', organization: org })).body.id;
    const made = await t.post('/api/v2/projects/', { name: 'gate-p', organization: org, scm_type: 'git', scm_url: 'https://git.example.invalid/plays.git' });
    assert.equal(made.status, 201, made.text);
    const project = made.body.id;
    template = (await t.db.query<AnyRow>(
      `INSERT INTO job_templates (name, organization_id, project_id, inventory_id, playbook, ask_variables_on_launch)
       VALUES ('gate-jt', $1, $2, $3, 'site.yml', true) RETURNING id`, [org, project, inventory],
    ))[0].id;
    const survey = { name: 'S', description: '', spec: [{ question_name: 'Secret', variable: 'secret', type: 'password', required: false, default: '' }] };
    const surveyed = await t.post(`/api/v2/job_templates/${template}/survey_spec/`, survey);
    assert.equal(surveyed.status, 200, surveyed.text);
    await t.db.query<AnyRow>('UPDATE job_templates SET survey_enabled = true WHERE id = $1', [template]);
    workflow = (await t.post('/api/v2/workflow_job_templates/', { name: 'gate-wf', organization: org })).body.id;
    orgAdmin = await newUser(t, { admin: org });
    otherAdmin = await newUser(t, { admin: other });
    member = await newUser(t, { member: org });
  });
  afterEach(async () => {
    await t.db.query<AnyRow>('UPDATE policies SET enabled = false');
  });
  after(async () => {
    await t?.close();
    await opa?.close();
  });

  it('a deny answers 403 with the reasons, leaves no run, and keeps a deny decision with the context evaluated', async () => {
    const denying = await policy({ result: ['Production needs a change ticket.'] });
    // No sync loop runs here: the launch is evaluated by the engine as it is, whatever the policy's upload.
    assert.equal(denying.sync_state, 'pending');
    const runs = await runCount();
    const res = await launchJob({ extra_vars: { env: 'prod', secret: 'hunter2' } });
    assert.equal(res.status, 403, res.text);
    assert.deepEqual(res.body, { detail: 'Policy denied launch.', reasons: [`${denying.name}: Production needs a change ticket.`] });
    assert.equal(await runCount(), runs, 'the run is gone');

    const [decision] = await decisions(`&policy=${denying.id}`);
    assert.equal(decision.decision, 'deny');
    assert.equal(decision.policy_name, denying.name);
    assert.equal(decision.resource_type, 'job_template');
    assert.equal(decision.unified_job_template, template);
    assert.equal(decision.message, 'Production needs a change ticket.');
    assert.equal(decision.user, 1);
    assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM unified_jobs WHERE id = $1', [decision.unified_job])).length, 0);
    const detail = (await t.get(`/api/v2/policy_decisions/${decision.id}/`)).body;
    const context = detail.context;
    assert.deepEqual(Object.keys(context).sort(), CONTEXT_KEYS);
    assert.equal(context.resource_type, 'job_template');
    assert.equal(context.resource_id, template);
    assert.equal(context.resource_name, 'gate-jt');
    assert.equal(context.organization_id, org);
    assert.deepEqual(context.user, { id: 1, username: 'admin', is_superuser: true });
    assert.deepEqual(context.extra_vars, { env: 'prod', secret: '$encrypted$' });
    assert.deepEqual(context.inventory, { id: inventory, name: 'gate-inv', kind: '' });
    assert.deepEqual(context.credentials, []);
    assert.equal(context.playbook, 'site.yml');
    assert.match(context.now_iso, /^\d{4}-\d\d-\d\dT/);
    assert.equal(context.client_ip, '127.0.0.1');
    assert.deepEqual(context.trigger, { type: 'manual' });
    assert.deepEqual(opa.evaluations.at(-1)!.input, context, 'the engine got the same document');
    assert.doesNotMatch(JSON.stringify([detail, await decisions(), opa.evaluations, (await t.get('/api/v2/audit_events/')).body]), /hunter2/);

    const counted = (await t.get(`/api/v2/policies/${denying.id}/`)).body;
    assert.equal(counted.trigger_count, 1);
    assert.ok(counted.last_triggered_at && counted.last_evaluated_at);
    const audit = (await t.get('/api/v2/audit_events/?event_type=policy.launch_denied')).body.results;
    assert.equal(audit.length, 1);
    assert.equal(audit[0].outcome, 'denied');
  });

  it("a decision is the launching user's: created_by and modified_by name who launched, created is its own", async () => {
    const denying = await policy({ result: ['Not from you.'] });
    const denied = await t.post('/api/v2/ad_hoc_commands/', { inventory, module_name: 'ping' }, { as: orgAdmin });
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.body.detail, 'Policy denied launch.');
    const [deny] = await decisions(`&policy=${denying.id}`);
    assert.equal(deny.user, orgAdmin.id);
    assertAuthors(deny, orgAdmin);
    const detail = (await t.get(`/api/v2/policy_decisions/${deny.id}/`, { as: orgAdmin })).body;
    assertAuthors(detail, orgAdmin);
    assert.ok(detail.created);
    assert.equal('modified' in detail, false);
    assert.deepEqual((await decisions(`&created_by=${orgAdmin.id}`)).map((d: { id: number }) => d.id), [deny.id]);
    assert.deepEqual((await decisions(`&modified_by__username=${orgAdmin.username}`)).map((d: { id: number }) => d.id), [deny.id]);

    await t.db.query<AnyRow>('UPDATE policies SET enabled = false');
    const warning = await policy({ result: { warn: ['Yours, with a warning.'], deny: [] } });
    const warned = await adHoc();
    assert.equal(warned.status, 201, warned.text);
    const [warn] = await decisions(`&policy=${warning.id}`);
    assertAuthors(warn, { id: 1, username: 'admin' });
    assert.equal((await decisions(`&created_by=${orgAdmin.id}`)).length, 1);
    // Another organization's admin neither sees the decision nor finds it through the user filters.
    assert.equal((await t.get(`/api/v2/policy_decisions/?created_by=${orgAdmin.id}`, { as: otherAdmin })).body.count, 0);
  });

  it('a warning lets the launch go on with the message in job_explanation and a warn decision', async () => {
    const warning = await policy({ result: { warn: ['Outside the change window.'], deny: [] } });
    const res = await launchJob();
    assert.equal(res.status, 201, res.text);
    assert.match(res.body.job_explanation, /Policy warning: gate-\d+: Outside the change window\./);
    const [decision] = await decisions(`&policy=${warning.id}`);
    assert.equal(decision.decision, 'warn');
    assert.equal(decision.unified_job, res.body.job);
    assert.equal((await t.get(`/api/v2/policies/${warning.id}/`)).body.trigger_count, 1);
  });

  it('reads every result shape of the engine', async () => {
    const shapes: [DataAnswer, 'allow' | 'warn' | 'deny', string?][] = [
      [{ result: true }, 'deny'],
      [{ result: false }, 'allow'],
      [{ result: 'a plain message' }, 'deny', 'a plain message'],
      [{ result: [] }, 'allow'],
      [{ result: ['listed'] }, 'deny', 'listed'],
      [{ result: [{ severity: 'warn', message: 'sev warn' }] }, 'warn', 'sev warn'],
      [{ result: [{ severity: 'low', msg: 'sev low' }] }, 'warn', 'sev low'],
      [{ result: [{ severity: 'info', message: 'sev info' }] }, 'warn', 'sev info'],
      [{ result: [{ severity: 'high', message: 'sev high' }] }, 'deny', 'sev high'],
      [{ result: [{ message: 'no severity' }] }, 'deny', 'no severity'],
      [{ result: { warn: ['w only'], deny: [] } }, 'warn', 'w only'],
      [{ result: { warn: [], deny: ['d listed'] } }, 'deny', 'd listed'],
      [{ result: { violations: [{ severity: 'info', message: 'v info' }] } }, 'warn', 'v info'],
      [{ result: { violations: [{ severity: 'critical', message: 'v crit' }] } }, 'deny', 'v crit'],
      [{ result: { deny: true } }, 'deny'],
      [{ result: { deny: false } }, 'allow'],
      [{ noResult: true }, 'allow'],
      [{ result: 42 }, 'allow'],
      [{ result: { allow: true } }, 'allow'],
      [{ result: null }, 'allow'],
    ];
    for (const [answer, expected, message] of shapes) {
      const shaped = await policy(answer);
      const res = await adHoc();
      const label = JSON.stringify(answer);
      if (expected === 'deny') {
        assert.equal(res.status, 403, `${label}: ${res.text}`);
        assert.equal(res.body.detail, 'Policy denied launch.');
        if (message) assert.deepEqual(res.body.reasons, [`${shaped.name}: ${message}`], label);
      } else {
        assert.equal(res.status, 201, `${label}: ${res.text}`);
        if (expected === 'warn') assert.match(res.body.job_explanation, new RegExp(message!), label);
        else assert.equal(res.body.job_explanation, '', label);
      }
      const made = await decisions(`&policy=${shaped.id}`);
      assert.deepEqual(made.map((d: { decision: string }) => d.decision), expected === 'allow' ? [] : [expected], label);
      await t.db.query<AnyRow>('UPDATE policies SET enabled = false');
    }
  });

  it("the organization caps enforcement: warn never blocks, none skips evaluation; a warn policy never blocks", async () => {
    await policy({ result: ['capped'] });
    await enforcement(org, 'warn');
    try {
      const warned = await adHoc();
      assert.equal(warned.status, 201, warned.text);
      assert.match(warned.body.job_explanation, /capped \(deny in warn-only\)/);
      assert.equal((await decisions(`&unified_job=${warned.body.id}`))[0].decision, 'warn');
      await enforcement(org, 'none');
      const evaluations = opa.evaluations.length;
      assert.equal((await adHoc()).status, 201);
      assert.equal(opa.evaluations.length, evaluations, 'not evaluated');
    } finally {
      await enforcement(org, 'enforce');
    }
    await t.db.query<AnyRow>('UPDATE policies SET enabled = false');
    await policy({ result: ['soft'] }, { enforcement: 'warn' });
    const soft = await adHoc();
    assert.equal(soft.status, 201, soft.text);
    assert.match(soft.body.job_explanation, /soft \(deny in warn-only\)/);
  });

  it('an unreachable engine follows OPA_FAIL_MODE: timeout, 500 and connection refused', async () => {
    const refused = await refusingUrl();
    const failures: [string, () => Promise<void>, () => Promise<void>][] = [
      ['timeout', async () => void (await policy({ hang: true })), async () => {}],
      ['500', async () => void (await policy({ status: 500 })), async () => {}],
      ['refused', async () => {
        await policy({ result: true });
        await security({ OPA_SERVER_URL: refused });
      }, () => security({ OPA_SERVER_URL: opa.url })],
    ];
    for (const [name, arrange, restore] of failures) {
      await arrange();
      try {
        await security({ OPA_FAIL_MODE: 'deny' });
        const runs = await runCount();
        const blocked = await adHoc();
        assert.equal(blocked.status, 403, `${name}: ${blocked.text}`);
        assert.match(blocked.body.detail, /Policy engine unavailable/, name);
        assert.equal(await runCount(), runs, name);
        await security({ OPA_FAIL_MODE: 'allow' });
        const allowed = await adHoc();
        assert.equal(allowed.status, 201, `${name}: ${allowed.text}`);
        assert.match(allowed.body.job_explanation, /Policy engine unavailable/, name);
        const [decision] = await decisions(`&unified_job=${allowed.body.id}`);
        assert.equal(decision.decision, 'warn', name);
      } finally {
        await restore();
        await security({ OPA_FAIL_MODE: 'allow' });
        await t.db.query<AnyRow>('UPDATE policies SET enabled = false');
      }
    }
  });

  it('applies only enabled policies of the organization (and global ones) whose applies_to names what is launched', async () => {
    await policy({ result: ['workflow only'] }, { applies_to: ['workflow_job_template'] });
    await policy({ result: ['theirs'] }, { organization: other });
    await policy({ result: ['disabled'] }, { enabled: false });
    const allowed = await adHoc();
    assert.equal(allowed.status, 201, allowed.text);
    const global = await policy({ result: ['global says no'] }, { organization: null, applies_to: ['ad_hoc_command'] });
    const denied = await adHoc();
    assert.equal(denied.status, 403);
    assert.deepEqual(denied.body.reasons, [`${global.name}: global says no`]);
  });

  it('OPA_ENABLED false skips evaluation', async () => {
    await policy({ result: true });
    await security({ OPA_ENABLED: false });
    try {
      const evaluations = opa.evaluations.length;
      assert.equal((await adHoc()).status, 201);
      assert.equal(opa.evaluations.length, evaluations);
    } finally {
      await security({ OPA_ENABLED: true });
    }
  });

  it('gates job template launches, workflow launches, ad hoc commands and relaunches', async () => {
    const allowed = await launchJob();
    assert.equal(allowed.status, 201, allowed.text);
    await policy({ result: ['stop'] });
    const seen = () => opa.evaluations.at(-1)!.input.resource_type;
    assert.equal((await launchJob()).status, 403);
    assert.equal(seen(), 'job_template');
    const wf = await t.post(`/api/v2/workflow_job_templates/${workflow}/launch/`, {});
    assert.equal(wf.status, 403, wf.text);
    assert.equal(seen(), 'workflow_job_template');
    assert.equal(opa.evaluations.at(-1)!.input.resource_id, workflow);
    assert.equal((await adHoc()).status, 403);
    assert.equal(seen(), 'ad_hoc_command');
    const relaunch = await t.post(`/api/v2/jobs/${allowed.body.job}/relaunch/`, {});
    assert.equal(relaunch.status, 403, relaunch.text);
    assert.equal(seen(), 'job_template');
  });

  it('decisions: filters, and each organization admin sees only its own', async () => {
    const mine = await policy({ result: ['mine'] });
    assert.equal((await adHoc()).status, 403);
    const all = await decisions();
    assert.ok(all.length >= 2);
    assert.ok((await decisions('&decision=warn')).every((d: { decision: string }) => d.decision === 'warn'));
    assert.equal((await decisions(`&policy=${mine.id}`)).length, 1);
    assert.equal((await decisions('&since=2999-01-01')).length, 0);
    assert.equal((await decisions('&since=2000-01-01')).length, all.length);
    assert.equal((await t.get('/api/v2/policy_decisions/?since=yesterday')).status, 400);

    const own = (await t.get('/api/v2/policy_decisions/?page_size=200', { as: orgAdmin })).body;
    assert.equal(own.count, all.length, 'every decision so far was about the organization');
    assert.equal((await t.get('/api/v2/policy_decisions/', { as: otherAdmin })).body.count, 0);
    assert.equal((await t.get('/api/v2/policy_decisions/', { as: member })).body.count, 0);
    assert.equal((await t.get(`/api/v2/policy_decisions/${all[0].id}/`, { as: otherAdmin })).status, 403);
    assert.equal((await t.delete(`/api/v2/policy_decisions/${all[0].id}/`)).status, 405);
  });
});
