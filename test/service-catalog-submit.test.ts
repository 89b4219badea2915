import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, newWorkflow, type User } from './helpers/factories.ts';
import { bareJobTemplate, newCatalogItem, setSurvey, survey } from './helpers/catalog.ts';
import type { Gate, GateInput } from '../src/runs/gates.ts';
import { GATES, SECRET_STORES } from '../src/composition/root.ts';
import { reencryptAll } from '../src/secrets/rotation.ts';
import { decryptSecret } from '../src/secrets/encryption.ts';
import { passwordPurpose } from '../src/resources/job-templates/survey-spec.ts';

// Rows here are read untyped from the tables the tests look into.
type AnyRow = any;

/**
 * Submitting requests of catalog items: answers checked against the survey as a launch checks them,
 * only survey answers reach the run, the run is the requester's with the item's authority, and a
 * gate's refusal shows on the request and leaves no run. The service runs no loops: launched runs
 * stay pending.
 */
describe('service catalog: submit', () => {
  let t: TestApp;
  let org: number;
  let otherOrg: number;
  let member: User;
  let orgAdmin: User;
  let plain: User;
  let otherAdmin: User;
  let orgAuditor: User;
  let template: number;
  let item: any;
  let disabled: any;
  const seen: GateInput[] = [];
  let deny = false;
  const recorder: Gate = { name: 'recorder', check: async (_tx, launch) => (seen.push(launch), { decision: 'allow' }) };
  const refusing: Gate = {
    name: 'refusing',
    check: async () => (deny ? { decision: 'deny', status: 403, message: 'Denied by the test gate.', body: { detail: 'Denied by the test gate.', reasons: ['no launches today'] } } : { decision: 'allow' }),
  };

  const QUESTIONS = survey(
    { variable: 'name', type: 'text', required: true, min: 3, max: 10 },
    { variable: 'count', type: 'integer', min: 1, max: 5, default: 1 },
    { variable: 'size', type: 'multiplechoice', choices: ['small', 'large'], default: 'small' },
    { variable: 'target', type: 'multiplechoice', dynamic_choices: { enabled: true, source_type: 'db_query', model: 'hosts' } },
    { variable: 'secret', type: 'password' },
  );

  const count = async (table: string) => (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0].n;
  const submit = (body: unknown, as: User = member, to = item) => t.post(`/api/v2/service_catalog_items/${to.id}/submit/`, body, { as });
  const job = async (id: number) => (await t.db.query<AnyRow>('SELECT * FROM unified_jobs WHERE id = $1', [id]))[0];

  before(async () => {
    t = await createTestApp({}, { dispatcher: false, gates: [recorder, refusing, ...GATES] });
    org = (await newOrg(t)).id;
    otherOrg = (await newOrg(t)).id;
    member = await newUser(t, { member: org });
    orgAdmin = await newUser(t, { admin: org });
    plain = await newUser(t);
    otherAdmin = await newUser(t, { admin: otherOrg });
    orgAuditor = await newUser(t, { auditor: org });
    template = await bareJobTemplate(t, org, { survey: QUESTIONS });
    item = await newCatalogItem(t, org, { job_template: template }, { name: 'Provision VM' }, orgAdmin);
    disabled = await newCatalogItem(t, org, { job_template: template }, { enabled: false }, orgAdmin);
  });
  after(async () => {
    await t?.close();
  });

  it("launches at once as the requester, with the item's authority and the survey's answers only", async () => {
    assert.equal((await t.get(`/api/v2/job_templates/${template}/launch/`, { as: member })).status, 403, 'the member may not launch the template');
    seen.length = 0;
    const res = await submit({ extra_vars: { name: 'web01', count: 2, target: 'any-host', secret: 'hunter2' }, justification: 'new service' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.type, 'service_request');
    assert.equal(res.body.status, 'running');
    assert.equal(res.body.catalog_item, item.id);
    assert.equal(res.body.requester, member.id);
    assert.equal(res.body.justification, 'new service');
    assert.deepEqual(res.body.extra_vars, { name: 'web01', count: 2, target: 'any-host', secret: '$encrypted$' });
    assert.equal(res.body.summary_fields.unified_job.type, 'job');
    assert.equal(res.body.related.unified_job, `/api/v2/jobs/${res.body.unified_job}/`);
    const run = await job(res.body.unified_job);
    assert.equal(run.status, 'pending');
    assert.equal(run.launch_type, 'manual');
    assert.equal(run.created_by_id, member.id);
    assert.equal(run.unified_job_template_id, template);
    const vars = JSON.parse(run.extra_vars);
    assert.deepEqual(Object.keys(vars).sort(), ['count', 'name', 'secret', 'size', 'target']);
    assert.equal(vars.size, 'small', 'defaults apply as at launch');
    assert.notEqual(vars.secret, 'hunter2', 'the password answer is stored encrypted');
    // Every gate saw the launch as the requester's, started by the catalog.
    assert.equal(seen.length, 1);
    assert.equal(seen[0].ctx.user?.id, member.id);
    assert.equal(seen[0].launchType, 'manual');
    assert.deepEqual(seen[0].trigger, { type: 'catalog', catalog_item: { id: item.id, name: 'Provision VM' }, service_request: res.body.id });
    const stored = (await t.db.query<AnyRow>('SELECT extra_vars FROM service_requests WHERE id = $1', [res.body.id]))[0].extra_vars;
    assert.doesNotMatch(JSON.stringify(stored), /hunter2/);
    const everything = JSON.stringify([(await t.get(`/api/v2/service_requests/${res.body.id}/`)).body, (await t.get('/api/v2/activity_stream/?object1=service_request')).body, (await t.get('/api/v2/audit_events/')).body]);
    assert.doesNotMatch(everything, /hunter2/);
  });

  it('checks the answers as a launch does: required, min and max, choices, dynamic choices; a refusal stores nothing', async () => {
    const requests = await count('service_requests');
    const runs = await count('unified_jobs');
    const refused: [Record<string, unknown>, RegExp][] = [
      [{}, /'name' value missing/],
      [{ name: 'ab' }, /'name' value ab is too small/],
      [{ name: 'abcdefghijk' }, /'name' value abcdefghijk is too large/],
      [{ name: 'web01', count: 0 }, /'count' value 0 is too small/],
      [{ name: 'web01', count: 6 }, /'count' value 6 is too large/],
      [{ name: 'web01', count: 'two' }, /expected to be an integer/],
      [{ name: 'web01', size: 'huge' }, /Value huge for 'size' expected to be one of \["small","large"\]/],
      [{ name: 'web01', target: 42 }, /Value 42 for 'target' expected to be a string/],
      [{ name: 'web01', target: 'x'.repeat(1025) }, /'target' value x+\.\.\. is too large/],
      [{ name: 'web01', secret: 7 }, /expected to be a string/],
    ];
    for (const [answers, problem] of refused) {
      const res = await submit({ extra_vars: answers });
      assert.equal(res.status, 400, `${JSON.stringify(answers)}: ${res.text}`);
      assert.match(res.body.variables_needed_to_start.join('\n'), problem, JSON.stringify(answers));
    }
    // A dynamic question's answer is not checked against choices that may have changed since they were shown.
    assert.equal((await submit({ extra_vars: { name: 'web01', target: 'not-a-listed-host' } })).status, 201);
    // Variables may come as JSON or YAML text too, as at launch.
    assert.equal((await submit({ extra_vars: 'name: web02\ncount: 3' })).status, 201);
    assert.equal(await count('service_requests'), requests + 2);
    assert.equal(await count('unified_jobs'), runs + 2);
  });

  it('refuses variables outside the survey, node answers for a job template and bad bodies, storing nothing', async () => {
    const requests = await count('service_requests');
    const runs = await count('unified_jobs');
    const cases: [unknown, number, RegExp][] = [
      [{ extra_vars: { name: 'web01', ansible_connection: 'local' } }, 400, /extra_vars.*ansible_connection is not a question of the survey/],
      [{ extra_vars: { name: 'web01', inventory: 1, limit: 'all', credentials: [1] } }, 400, /Variables inventory, limit, credentials are not a question/],
      [{ extra_vars: { name: 'web01' }, inventory: 5, limit: 'evil', credentials: [1], job_tags: 'x' }, 201, /./],
      [{ extra_vars: { name: 'web01' }, node_survey_data: { 1: { name: 'x' } } }, 400, /node_survey_data.*Only a workflow's catalog item/],
      [{ extra_vars: ['name'] }, 400, /extra_vars/],
      [{ extra_vars: '- a list' }, 400, /extra_vars/],
      [{ extra_vars: 5 }, 400, /extra_vars/],
      [{ extra_vars: { name: 'web01' }, justification: 5 }, 400, /justification/],
      [{ extra_vars: { name: 'web01' }, justification: 'x'.repeat(4097) }, 400, /justification/],
      [{ extra_vars: { name: 'web01' }, node_survey_data: 'x' }, 400, /node_survey_data/],
      [[1, 2], 400, /Expected a dictionary|Invalid data/],
    ];
    for (const [body, status, problem] of cases) {
      const res = await submit(body);
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.text, problem, JSON.stringify(body));
    }
    // The one accepted body launched with the template's inventory and nothing of the prompts it named.
    assert.equal(await count('service_requests'), requests + 1);
    assert.equal(await count('unified_jobs'), runs + 1);
    const [last] = await t.db.query<AnyRow>('SELECT * FROM unified_jobs ORDER BY id DESC LIMIT 1');
    assert.equal(last.limit, '');
    assert.equal(last.job_tags, '');
    assert.deepEqual(await t.db.query<AnyRow>('SELECT credential_id FROM unified_job_credentials WHERE unified_job_id = $1', [last.id]), []);
  });

  it('only members of the organization submit, and only enabled items', async () => {
    const requests = await count('service_requests');
    for (const who of [plain, otherAdmin]) {
      const res = await submit({ extra_vars: { name: 'web01' } }, who);
      assert.equal(res.status, 403, `${who.username}: ${res.text}`);
      assert.equal((await t.get(`/api/v2/service_catalog_items/${item.id}/launch_data/`, { as: who })).status, 403);
    }
    assert.equal((await submit({ extra_vars: { name: 'web01' } }, member, disabled)).status, 403, 'a member does not see a disabled item');
    assert.deepEqual((await t.get(`/api/v2/service_catalog_items/${item.id}/submit/`, { as: member })).body, { can_submit: true });
    assert.deepEqual((await t.get(`/api/v2/service_catalog_items/${disabled.id}/submit/`, { as: orgAdmin })).body, { can_submit: false });
    assert.deepEqual((await t.get(`/api/v2/service_catalog_items/${item.id}/submit/`, { as: orgAuditor })).body, { can_submit: false });
    const toDisabled = await submit({ extra_vars: { name: 'web01' } }, orgAdmin, disabled);
    assert.equal(toDisabled.status, 400, toDisabled.text);
    assert.match(toDisabled.body.detail, /disabled/);
    assert.equal(await count('service_requests'), requests);
  });

  it("a gate's refusal answers 201 with a failed request holding the refusal, and leaves no run", async () => {
    const runs = await count('unified_jobs');
    deny = true;
    try {
      const res = await submit({ extra_vars: { name: 'web01' } });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.status, 'failed');
      assert.equal(res.body.unified_job, null);
      assert.equal(res.body.refusal_detail, 'Denied by the test gate.');
      assert.deepEqual(res.body.refusal_reasons, ['no launches today']);
    } finally {
      deny = false;
    }
    assert.equal(await count('unified_jobs'), runs);
  });

  it("the item's authority ends when its template leaves the organization: the request fails, nothing runs", async () => {
    const moving = await bareJobTemplate(t, org, { survey: QUESTIONS });
    const leaving = await newCatalogItem(t, org, { job_template: moving }, {}, orgAdmin);
    await t.db.query('UPDATE job_templates SET organization_id = $2 WHERE id = $1', [moving, otherOrg]);
    const runs = await count('unified_jobs');
    const res = await submit({ extra_vars: { name: 'web01' } }, member, leaving);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'failed');
    assert.match(res.body.refusal_detail, /no longer one of the item's organization/);
    assert.equal(await count('unified_jobs'), runs);
  });

  it('launch_data shows the survey (passwords masked) and says no other variables are taken', async () => {
    const res = await t.get(`/api/v2/service_catalog_items/${item.id}/launch_data/`, { as: member });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['ask_variables_on_launch', 'catalog_item', 'is_workflow', 'node_surveys', 'survey_enabled', 'survey_spec']);
    assert.equal(res.body.catalog_item, item.id);
    assert.equal(res.body.is_workflow, false);
    assert.equal(res.body.survey_enabled, true);
    assert.equal(res.body.ask_variables_on_launch, false);
    assert.deepEqual(res.body.survey_spec.spec.map((q: { variable: string }) => q.variable), ['name', 'count', 'size', 'target', 'secret']);
    assert.deepEqual(res.body.node_surveys, []);
  });

  it("a workflow's item takes answers for each node's survey, checked, and hands them to that node only", async () => {
    const nodeTemplate = await bareJobTemplate(t, org, { survey: survey({ variable: 'vm_size', type: 'multiplechoice', choices: ['s', 'm'], required: true }, { variable: 'pin', type: 'password' }) });
    const plainTemplate = await bareJobTemplate(t, org);
    const workflow = await newWorkflow(t, org, { nodes: { build: { template: nodeTemplate }, notify: { template: plainTemplate } }, edges: [['build', 'success', 'notify']] });
    await setSurvey(t, `/api/v2/workflow_job_templates/${workflow.id}/`, survey({ variable: 'ticket', type: 'text', required: true }));
    const flow = await newCatalogItem(t, org, { workflow_job_template: workflow.id }, {}, orgAdmin);

    const data = (await t.get(`/api/v2/service_catalog_items/${flow.id}/launch_data/`, { as: member })).body;
    assert.equal(data.is_workflow, true);
    assert.deepEqual(data.survey_spec.spec.map((q: { variable: string }) => q.variable), ['ticket']);
    assert.deepEqual(data.node_surveys.map((n: { node_id: number; identifier: string }) => [n.node_id, n.identifier]), [[workflow.nodes.build, 'build']]);

    const requests = await count('service_requests');
    const refused: [unknown, RegExp][] = [
      [{ extra_vars: { ticket: 'T-1' } }, /build: 'vm_size' value missing/],
      [{ extra_vars: { ticket: 'T-1' }, node_survey_data: { build: { vm_size: 'xl' } } }, /build: Value xl for 'vm_size'/],
      [{ extra_vars: { ticket: 'T-1' }, node_survey_data: { build: { vm_size: 's', become: true } } }, /build: Variable become is not a question/],
      [{ extra_vars: { ticket: 'T-1' }, node_survey_data: { build: { vm_size: 's' }, notify: { x: 1 } } }, /notify: no node of the workflow/],
      [{ extra_vars: { ticket: 'T-1' }, node_survey_data: { build: { vm_size: 's' }, 999999: { x: 1 } } }, /999999: no node/],
      [{ node_survey_data: { build: { vm_size: 's' } } }, /'ticket' value missing/],
    ];
    for (const [body, problem] of refused) {
      const res = await submit(body, member, flow);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(res.text, problem, JSON.stringify(body));
    }
    assert.equal(await count('service_requests'), requests);

    const res = await submit({ extra_vars: { ticket: 'T-1' }, node_survey_data: { [workflow.nodes.build]: { vm_size: 'm', pin: '1234' } } }, member, flow);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.status, 'running');
    assert.equal(res.body.summary_fields.unified_job.type, 'workflow_job');
    assert.deepEqual(res.body.node_survey_data, { build: { vm_size: 'm', pin: '$encrypted$' } });
    const workflowJob = await job(res.body.unified_job);
    assert.equal(workflowJob.created_by_id, member.id);
    assert.deepEqual(JSON.parse(workflowJob.extra_vars), { ticket: 'T-1' });
    const nodes = await t.db.query<AnyRow>('SELECT id, identifier, extra_data FROM workflow_job_nodes WHERE workflow_job_id = $1 ORDER BY identifier', [workflowJob.id]);
    assert.equal(nodes[0].identifier, 'build');
    assert.equal(nodes[0].extra_data.vm_size, 'm');
    assert.notEqual(nodes[0].extra_data.pin, '1234', 'kept encrypted');
    assert.deepEqual(nodes[1].extra_data, {});
    const shown = (await t.get(`/api/v2/workflow_job_nodes/${nodes[0].id}/`)).body;
    assert.deepEqual(shown.extra_data, { vm_size: 'm', pin: '$encrypted$' });
  });

  it('regenerate_secret_key re-encrypts the password answers that requests and workflow job nodes keep', async () => {
    const stored = async () => JSON.stringify([
      await t.db.query<AnyRow>('SELECT extra_vars, node_survey_data FROM service_requests ORDER BY id'),
      await t.db.query<AnyRow>('SELECT extra_data FROM workflow_job_nodes ORDER BY id'),
    ]);
    const before = await stored();
    const counts = await t.db.transaction((tx) => reencryptAll(tx, SECRET_STORES, t.env.secretKey, 'another-key'));
    // The first request's secret; the workflow's request's pin, and its node's copy.
    assert.equal(counts['service request survey passwords'], 3);
    assert.notEqual(await stored(), before);
    await t.db.transaction((tx) => reencryptAll(tx, SECRET_STORES, 'another-key', t.env.secretKey));
    const [first] = await t.db.query<AnyRow>(`SELECT extra_vars FROM service_requests WHERE extra_vars ? 'secret' ORDER BY id LIMIT 1`);
    assert.equal(decryptSecret(passwordPurpose('secret'), first.extra_vars.secret), 'hunter2');
  });
});
