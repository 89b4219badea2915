/**
 * Every way of launching a job template reads the same prompts: the job kind's PromptSpec list
 * (docs/architecture.md, "Launch prompts"). Driven by that list, so a prompt added to the kind is
 * covered here, or this test fails until it is given a value.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { createTestApp, grant, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { rruleIn } from './helpers/schedules.ts';
import { jobKind } from '../src/run-kinds/job/kind.ts';
import type { PromptSpec } from '../src/runs/prompts.ts';
import { launchDueSchedules } from '../src/task-manager/scheduler.ts';
import { workflowPass } from '../src/run-kinds/workflow-job/workflow-pass.ts';

const PROMPTS = jobKind.template!.prompts;
const NOT_PROMPTED = 'Field is not configured to prompt on launch.';
const allAsks = (on: boolean) => Object.fromEntries(PROMPTS.map((p) => [`ask_${p.flag}_on_launch`, on]));

/** Paths that save a prompt and what each can hold: a workflow node saves no labels or instance groups (as stored here). */
const nodeSaves = (spec: PromptSpec) => spec.shape !== 'objects' || spec.field === 'credentials';

interface World {
  org: number;
  project: number;
  inventory: number;
  /** A value of every prompt, unlike the template's own. */
  values: Record<string, unknown>;
}

async function world(t: TestApp): Promise<World> {
  const org = (await newOrg(t)).id;
  const dir = `${t.env.projectsRoot}/prompts${org}`;
  await mkdir(dir, { recursive: true });
  await writeFile(`${dir}/hello.yml`, '- hosts: all\n  gather_facts: false\n  tasks: []\n');
  const project = (await t.post('/api/v2/projects/', { name: `Prompts ${org}`, organization: org, local_path: `prompts${org}`, allow_override: true })).body.id;
  const inventory = (await t.post('/api/v2/inventories/', { name: `Prompts ${org}`, organization: org })).body.id;
  const other = (await t.post('/api/v2/inventories/', { name: `Prompted ${org}`, organization: org })).body.id;
  const machine = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
  const credential = (await t.post('/api/v2/credentials/', { name: `Prompted ${org}`, organization: org, credential_type: machine, inputs: { username: 'u' } })).body.id;
  const ee = (await t.post('/api/v2/execution_environments/', { name: `Prompted ${org}`, organization: org, image: 'quay.io/example/ee:1' })).body.id;
  const label = (await t.post('/api/v2/labels/', { name: `prompted-${org}`, organization: org })).body.id;
  const group = (await t.post('/api/v2/instance_groups/', { name: `prompted-${org}` })).body.id;
  const values: Record<string, unknown> = {
    inventory: other, credentials: [credential], limit: 'web', job_tags: 'alpha', skip_tags: 'beta', job_type: 'check', verbosity: 3,
    diff_mode: true, scm_branch: 'dev', forks: 7, timeout: 42, job_slice_count: 2, execution_environment: ee, labels: [label],
    instance_groups: [group], extra_vars: { prompted: 'yes' },
  };
  return { org, project, inventory, values };
}

async function template(t: TestApp, w: World, asks: boolean): Promise<any> {
  const res = await t.post('/api/v2/job_templates/', { name: `Prompts ${asks} ${Date.now()}`, project: w.project, inventory: w.inventory, playbook: 'hello.yml', allow_simultaneous: true, ...allAsks(asks) });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** The job's value of a prompt, read through the API (its instance groups from the database: the API lists none). */
async function jobValue(t: TestApp, jobId: number, spec: PromptSpec): Promise<unknown> {
  const job = (await t.get(`/api/v2/jobs/${jobId}/`)).body;
  if (spec.shape === 'variables') return JSON.parse(job.extra_vars).prompted === 'yes' ? { prompted: 'yes' } : undefined;
  if (spec.field === 'instance_groups') {
    return (await t.db.query('SELECT instance_group_id AS id FROM unified_job_instance_groups WHERE unified_job_id = $1 ORDER BY position', [jobId])).map((r) => r.id);
  }
  if (spec.shape === 'objects') return (await t.get(`/api/v2/jobs/${jobId}/${spec.field}/`)).body.results.map((r: any) => r.id);
  return job[spec.field];
}

/** The job a due schedule launches. */
async function scheduledJob(t: TestApp, scheduleId: number): Promise<number> {
  await t.db.query("UPDATE schedules SET next_run = now() - interval '1 second' WHERE id = $1", [scheduleId]);
  await launchDueSchedules(t.services);
  const runs = (await t.get(`/api/v2/schedules/${scheduleId}/jobs/`)).body.results;
  assert.equal(runs.length, 1, `schedule ${scheduleId} launched once`);
  return runs[0].id;
}

/** The job a workflow's only node starts. */
async function nodeJob(t: TestApp, workflowId: number): Promise<number> {
  const launched = await t.post(`/api/v2/workflow_job_templates/${workflowId}/launch/`, {});
  assert.equal(launched.status, 201, launched.text);
  await workflowPass(t.services);
  const nodes = (await t.get(`/api/v2/workflow_jobs/${launched.body.workflow_job}/workflow_nodes/`)).body.results;
  assert.ok(nodes[0]?.job, 'the node started its job');
  const job = (await t.get(`/api/v2/jobs/${nodes[0].job}/`)).body;
  assert.equal(job.status, 'pending', job.job_explanation);
  return job.id;
}

async function newSchedule(t: TestApp, templateId: number, body: Record<string, unknown>, as?: User) {
  return t.post('/api/v2/schedules/', { name: `s${Date.now()}${Math.random()}`, unified_job_template: templateId, rrule: rruleIn(3600), ...body }, { as });
}

async function newWorkflow(t: TestApp, org: number): Promise<number> {
  return (await t.post('/api/v2/workflow_job_templates/', { name: `Prompts ${Date.now()}${Math.random()}`, organization: org })).body.id;
}

describe('launch prompts: launch/, schedules and workflow nodes read the kind\'s prompts alike', () => {
  let t: TestApp;
  let w: World;

  before(async () => {
    // No loops: launched jobs stay pending; the test runs the scheduler and the workflow pass itself.
    t = await createTestApp({}, { dispatcher: false });
    w = await world(t);
  });
  after(() => t.close());

  it('has a test value for every prompt of the job kind, and launch/ describes each', async () => {
    for (const spec of PROMPTS) assert.ok(spec.field in w.values, `a value for prompt ${spec.field}`);
    const jt = await template(t, w, true);
    const options = await t.request('OPTIONS', `/api/v2/job_templates/${jt.id}/launch/`);
    for (const spec of PROMPTS) assert.ok(spec.field in options.body.actions.POST, `OPTIONS describes ${spec.field}`);
    const described = (await t.get(`/api/v2/job_templates/${jt.id}/launch/`)).body;
    for (const spec of PROMPTS) assert.equal(described[`ask_${spec.flag}_on_launch`], true, `GET launch/ shows ask_${spec.flag}_on_launch`);
  });

  it('takes each prompt the template asks for, on every path', async () => {
    const jt = await template(t, w, true);
    const launched = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, w.values);
    assert.equal(launched.status, 201, launched.text);
    assert.deepEqual(launched.body.ignored_fields, {});

    const columns = Object.fromEntries(PROMPTS.filter((p) => p.shape === 'column').map((p) => [p.field, w.values[p.field]]));
    const schedule = await newSchedule(t, jt.id, { ...columns, extra_data: w.values.extra_vars });
    assert.equal(schedule.status, 201, schedule.text);
    for (const spec of PROMPTS.filter((p) => p.shape === 'objects')) {
      for (const id of w.values[spec.field] as number[]) {
        const attached = await t.post(`/api/v2/schedules/${schedule.body.id}/${spec.field}/`, { id });
        assert.equal(attached.status, 204, `${spec.field}: ${attached.text}`);
      }
    }

    const workflow = await newWorkflow(t, w.org);
    const node = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: workflow, unified_job_template: jt.id, ...columns, extra_data: w.values.extra_vars });
    assert.equal(node.status, 201, node.text);
    for (const spec of PROMPTS.filter((p) => p.shape === 'objects' && nodeSaves(p))) {
      for (const id of w.values[spec.field] as number[]) assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${node.body.id}/${spec.field}/`, { id })).status, 204);
    }

    const jobs = { 'launch/': launched.body.id, schedule: await scheduledJob(t, schedule.body.id), 'workflow node': await nodeJob(t, workflow) };
    for (const [path, job] of Object.entries(jobs)) {
      for (const spec of PROMPTS.filter((p) => path !== 'workflow node' || nodeSaves(p))) {
        assert.deepEqual(await jobValue(t, job, spec), w.values[spec.field], `${spec.field} through ${path}`);
      }
    }
  });

  it('ignores on launch/, refuses on schedules and nodes, each prompt the template does not ask for', async () => {
    const jt = await template(t, w, false);
    const launched = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, w.values);
    assert.equal(launched.status, 201, launched.text);
    assert.deepEqual(launched.body.ignored_fields, Object.fromEntries(PROMPTS.map((p) => [p.field, w.values[p.field]])));
    for (const spec of PROMPTS) assert.notDeepEqual(await jobValue(t, launched.body.id, spec), w.values[spec.field], `${spec.field} not taken`);

    const schedule = await newSchedule(t, jt.id, {});
    assert.equal(schedule.status, 201, schedule.text);
    const workflow = await newWorkflow(t, w.org);
    const node = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: workflow, unified_job_template: jt.id });
    assert.equal(node.status, 201, node.text);
    for (const spec of PROMPTS) {
      const value = w.values[spec.field];
      if (spec.shape === 'column') {
        assert.deepEqual((await newSchedule(t, jt.id, { [spec.field]: value })).body, { [spec.field]: [NOT_PROMPTED] }, `schedule ${spec.field}`);
        const refused = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: workflow, unified_job_template: jt.id, [spec.field]: value });
        assert.deepEqual([refused.status, refused.body], [400, { [spec.field]: [NOT_PROMPTED] }], `node ${spec.field}`);
      } else if (spec.shape === 'variables') {
        assert.match((await newSchedule(t, jt.id, { extra_data: value })).body.extra_data?.[0] ?? '', /Variables prompted are not allowed on launch/);
        const refused = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: workflow, unified_job_template: jt.id, extra_data: value });
        assert.match(refused.body.extra_data?.[0] ?? '', /Variables prompted are not allowed on launch/);
      } else {
        const attached = await t.post(`/api/v2/schedules/${schedule.body.id}/${spec.field}/`, { id: (value as number[])[0] });
        assert.deepEqual([attached.status, attached.body], [400, { msg: [`Related template is not configured to accept ${spec.field} on launch.`] }]);
        // A node keeps credentials attached before the template stopped asking for them; its launch ignores them.
        if (nodeSaves(spec)) assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${node.body.id}/${spec.field}/`, { id: (value as number[])[0] })).status, 204);
      }
    }
    const fromNode = await nodeJob(t, workflow);
    for (const spec of PROMPTS.filter(nodeSaves)) assert.notDeepEqual(await jobValue(t, fromNode, spec), w.values[spec.field], `${spec.field} not taken from the node`);
  });

  it('a saved prompt whose flag is turned off later is ignored when the schedule or node launches', async () => {
    const jt = await template(t, w, true);
    const columns = Object.fromEntries(PROMPTS.filter((p) => p.shape === 'column').map((p) => [p.field, w.values[p.field]]));
    const schedule = await newSchedule(t, jt.id, columns);
    assert.equal(schedule.status, 201, schedule.text);
    const workflow = await newWorkflow(t, w.org);
    assert.equal((await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: workflow, unified_job_template: jt.id, ...columns })).status, 201);
    assert.equal((await t.patch(`/api/v2/job_templates/${jt.id}/`, allAsks(false))).status, 200);
    for (const job of [await scheduledJob(t, schedule.body.id), await nodeJob(t, workflow)]) {
      for (const spec of PROMPTS.filter((p) => p.shape === 'column')) assert.notDeepEqual(await jobValue(t, job, spec), w.values[spec.field], spec.field);
    }
  });
});

describe('launch prompts naming objects the caller may not use are refused on every path', () => {
  let t: TestApp;
  let w: World;
  let jt: any;
  let workflow: number;
  let member: User;
  let otherAdmin: User;
  /** An inventory, a credential and an execution environment of an organization neither user belongs to. */
  let foreign: { inventory: number; credential: number; execution_environment: number };

  const counts = async () => (await t.db.query<{ runs: number; schedules: number; nodes: number; sc: number; nc: number }>(`SELECT (SELECT count(*) FROM unified_jobs)::int AS runs, (SELECT count(*) FROM schedules)::int AS schedules,
    (SELECT count(*) FROM workflow_job_template_nodes)::int AS nodes, (SELECT count(*) FROM schedule_credentials)::int AS sc,
    (SELECT count(*) FROM workflow_job_template_node_credentials)::int AS nc`))[0];

  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    w = await world(t);
    jt = await template(t, w, true);
    workflow = await newWorkflow(t, w.org);
    member = await newUser(t);
    await grant(t, member, `/api/v2/organizations/${w.org}/`, 'member_role');
    otherAdmin = await newUser(t);
    const orgB = (await newOrg(t)).id;
    await grant(t, otherAdmin, `/api/v2/organizations/${orgB}/`, 'admin_role');
    for (const user of [member, otherAdmin]) {
      await grant(t, user, `/api/v2/job_templates/${jt.id}/`, 'execute_role');
      await grant(t, user, `/api/v2/workflow_job_templates/${workflow}/`, 'admin_role');
    }
    const far = await world(t);
    foreign = { inventory: far.values.inventory as number, credential: (far.values.credentials as number[])[0], execution_environment: far.values.execution_environment as number };
  });
  after(() => t.close());

  for (const who of ['a member of the template\'s organization', 'another organization\'s admin']) {
    it(`${who}: launch/, a schedule and a workflow node refuse another organization's inventory, credential and execution environment`, async () => {
      const as = who.startsWith('a member') ? member : otherAdmin;
      const before = await counts();
      // The user may use the template itself on every path.
      assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/launch/`, {}, { as })).status, 201);
      const schedule = await newSchedule(t, jt.id, {}, as);
      assert.equal(schedule.status, 201, schedule.text);
      const node = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: workflow, unified_job_template: jt.id }, { as });
      assert.equal(node.status, 201, node.text);
      for (const field of ['inventory', 'execution_environment'] as const) {
        const launch = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { [field]: foreign[field] }, { as });
        assert.equal(launch.status, 403, `launch/ ${field}: ${launch.text}`);
        const scheduled = await t.post('/api/v2/schedules/', { name: `foreign ${field}`, unified_job_template: jt.id, rrule: rruleIn(3600), [field]: foreign[field] }, { as });
        assert.equal(scheduled.status, 403, `schedule ${field}: ${scheduled.text}`);
        const edited = await t.patch(`/api/v2/schedules/${schedule.body.id}/`, { [field]: foreign[field] }, { as });
        assert.equal(edited.status, 403, `schedule edit ${field}: ${edited.text}`);
        const inNode = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: workflow, unified_job_template: jt.id, [field]: foreign[field] }, { as });
        assert.equal(inNode.status, 403, `node ${field}: ${inNode.text}`);
        const nodeEdit = await t.patch(`/api/v2/workflow_job_template_nodes/${node.body.id}/`, { [field]: foreign[field] }, { as });
        assert.equal(nodeEdit.status, 403, `node edit ${field}: ${nodeEdit.text}`);
      }
      assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/launch/`, { credentials: [foreign.credential] }, { as })).status, 403);
      assert.equal((await t.post(`/api/v2/schedules/${schedule.body.id}/credentials/`, { id: foreign.credential }, { as })).status, 403);
      assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${node.body.id}/credentials/`, { id: foreign.credential }, { as })).status, 403);
      const after = await counts();
      // The refusals left nothing: only the plain launch, the schedule and the node made above.
      assert.deepEqual(after, { ...before, runs: before.runs + 1, schedules: before.schedules + 1, nodes: before.nodes + 1 });
    });
  }
});
