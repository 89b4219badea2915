// Launching workflows: surveys, prompts, node credentials, and a pass repeated without starting a node twice.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { advanceWorkflowJobs, workflowPass } from '../src/run-kinds/workflow-job/workflow-pass.ts';
import { newWorkflowMemory } from '../src/run-kinds/workflow-job/graph-read.ts';
import { answer, finished, jobNodes, launchWorkflow, makeWorkflow, nodeRun } from './helpers/workflows.ts';

const SURVEY = { name: 'Ask', description: '', spec: [{ question_name: 'Where', variable: 'region', type: 'multiplechoice', choices: ['eu', 'us'], required: true }] };

describe('launching workflows', () => {
  let t: TestApp;
  let org: number;
  let otherAdmin: User;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t, { name: 'Launches' })).id;
    const other = await newOrg(t, { name: 'Far' });
    otherAdmin = await newUser(t, { admin: other.id });
  });
  after(() => t.close());

  it('asks the survey and keeps its answers in the workflow job', async () => {
    const wf = await makeWorkflow(t, org, 'surveyed', { a: {} }, []);
    assert.equal((await t.post(`/api/v2/workflow_job_templates/${wf.id}/survey_spec/`, SURVEY)).status, 200);
    assert.equal((await t.patch(`/api/v2/workflow_job_templates/${wf.id}/`, { survey_enabled: true })).status, 200);
    const described = (await t.get(`/api/v2/workflow_job_templates/${wf.id}/launch/`)).body;
    assert.equal(described.survey_enabled, true);
    assert.deepEqual(described.variables_needed_to_start, ['region']);
    const missing = await t.post(`/api/v2/workflow_job_templates/${wf.id}/launch/`, {});
    assert.equal(missing.status, 400);
    assert.ok(missing.body.variables_needed_to_start);
    const wrong = await t.post(`/api/v2/workflow_job_templates/${wf.id}/launch/`, { extra_vars: { region: 'mars' } });
    assert.equal(wrong.status, 400);
    const wj = await launchWorkflow(t, wf.id, { extra_vars: { region: 'us', other: 1 } });
    const job = (await t.get(`/api/v2/workflow_jobs/${wj}/`)).body;
    assert.deepEqual(JSON.parse(job.extra_vars), { region: 'us' });
    await answer(t, wj, 'a', 'approve');
    await finished(t, wj);
  });

  it('takes prompts the workflow asks for and refuses an inventory the caller may not use', async () => {
    const inventory = (await t.post('/api/v2/inventories/', { name: 'prompted', organization: org })).body.id;
    const wf = await makeWorkflow(t, org, 'prompted', { a: {} }, [], { ask_limit_on_launch: true, ask_inventory_on_launch: true });
    const res = await t.post(`/api/v2/workflow_job_templates/${wf.id}/launch/`, { limit: 'web*', inventory, scm_branch: 'dev' });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.limit, 'web*');
    assert.equal(res.body.inventory, inventory);
    assert.deepEqual(res.body.ignored_fields, { scm_branch: 'dev' });
    await answer(t, res.body.workflow_job, 'a', 'approve');
    // Another organization's admin with execute on the workflow still cannot bring this inventory in.
    const theirs = await t.post('/api/v2/workflow_job_templates/', { name: 'theirs', organization: (await t.get('/api/v2/organizations/?name=Far')).body.results[0].id, ask_inventory_on_launch: true }, { as: otherAdmin });
    assert.equal(theirs.status, 201, theirs.text);
    const refused = await t.post(`/api/v2/workflow_job_templates/${theirs.body.id}/launch/`, { inventory }, { as: otherAdmin });
    assert.equal(refused.status, 403);
    assert.equal((await t.get('/api/v2/workflow_jobs/?workflow_job_template=' + theirs.body.id)).body.count, 0);
  });

  it('attaches to a node only credentials the caller may use', async () => {
    const wf = await makeWorkflow(t, org, 'with credentials', { a: {} }, []);
    const machine = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    const mine = (await t.post('/api/v2/credentials/', { name: 'ours', organization: org, credential_type: machine, inputs: { username: 'u' } })).body.id;
    const far = (await t.get('/api/v2/organizations/?name=Far')).body.results[0].id;
    const foreign = (await t.post('/api/v2/credentials/', { name: 'far', organization: far, credential_type: machine, inputs: { username: 'x' } }, { as: otherAdmin })).body.id;
    assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${wf.nodes.a}/credentials/`, { id: mine })).status, 204);
    assert.deepEqual((await t.get(`/api/v2/workflow_job_template_nodes/${wf.nodes.a}/credentials/`)).body.results.map((c: any) => c.id), [mine]);
    // The other organization's admin can use his credential but not touch this workflow's nodes.
    assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${wf.nodes.a}/credentials/`, { id: foreign }, { as: otherAdmin })).status, 403);
  });

  it('refuses a second credential of the same type on a node, as AWX\'s saved launch configurations', async () => {
    const wf = await makeWorkflow(t, org, 'one per type', { a: {} }, []);
    const url = `/api/v2/workflow_job_template_nodes/${wf.nodes.a}/credentials/`;
    const machine = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    const vault = (await t.get('/api/v2/credential_types/?namespace=vault')).body.results[0].id;
    const cred = async (name: string, type: number, inputs: Record<string, string>) =>
      (await t.post('/api/v2/credentials/', { name, organization: org, credential_type: type, inputs })).body.id as number;
    const [m1, m2] = [await cred('node m1', machine, { username: 'a' }), await cred('node m2', machine, { username: 'b' })];
    const [v1, v2, v3] = [await cred('node v1', vault, { vault_password: 'x', vault_id: 'dev' }), await cred('node v2', vault, { vault_password: 'y', vault_id: 'prod' }), await cred('node v3', vault, { vault_password: 'z', vault_id: 'dev' })];
    for (const id of [m1, v1, v2]) assert.equal((await t.post(url, { id })).status, 204);
    const second = await t.post(url, { id: m2 });
    assert.equal(second.status, 400);
    assert.deepEqual(second.body, { msg: ['This launch configuration already provides a Machine credential.'] });
    const sameVault = await t.post(url, { id: v3 });
    assert.equal(sameVault.status, 400);
    assert.deepEqual(sameVault.body, { msg: ['This launch configuration already provides a Vault (id=dev) credential.'] });
    assert.deepEqual((await t.get(url)).body.results.map((c: any) => c.id).sort(), [m1, v1, v2].sort());
  });

  it('starts each node once however often the pass runs', async () => {
    const wf = await makeWorkflow(t, org, 'repeated', { a: {}, b: {}, c: {} }, [['a', 'always', 'b'], ['a', 'always', 'c']]);
    const wj = await launchWorkflow(t, wf.id);
    await nodeRun(t, wj, 'a');
    await Promise.all([workflowPass(t.services), workflowPass(t.services), workflowPass(t.services)]);
    await answer(t, wj, 'a', 'approve');
    await nodeRun(t, wj, 'b');
    await Promise.all([workflowPass(t.services), workflowPass(t.services)]);
    const runs = await t.db.query(`SELECT count(*)::int AS n FROM unified_jobs WHERE kind = 'workflow_approval' AND id IN (SELECT job_id FROM workflow_job_nodes WHERE workflow_job_id = $1)`, [wj]);
    const approvals = await t.db.query(`SELECT count(*)::int AS n FROM unified_jobs WHERE kind = 'workflow_approval' AND name LIKE 'repeated %'`);
    assert.equal(runs[0].n, 3);
    assert.equal(approvals[0].n, 3);
    await answer(t, wj, 'b', 'approve');
    await answer(t, wj, 'c', 'approve');
    assert.equal((await finished(t, wj)).status, 'successful');
    assert.equal(Object.values(await jobNodes(t, wj)).length, 3);
  });

  it('reads a remembered graph whole again once another look (of another service node) moved it on', async () => {
    const wf = await makeWorkflow(t, org, 'remembered', { a: {}, b: {}, c: {} }, [['a', 'success', 'b'], ['b', 'success', 'c']]);
    const wj = await launchWorkflow(t, wf.id);
    await nodeRun(t, wj, 'a');
    // A look of a second loop, which remembers the graph as it saw it: a started, b and c not.
    const elsewhere = newWorkflowMemory();
    const lookElsewhere = async () => {
      await t.db.query('UPDATE unified_jobs SET workflow_attention = true WHERE id = $1', [wj]);
      await advanceWorkflowJobs(t.services, [wj], elsewhere);
    };
    await lookElsewhere();
    assert.equal(elsewhere.graphs.get(wj)?.nodes_started, 1);
    // This service's loop starts b when a is approved; the second loop's memory does not know.
    await answer(t, wj, 'a', 'approve');
    const b = await nodeRun(t, wj, 'b');
    await t.settle();
    await lookElsewhere();
    const approvals = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM unified_jobs WHERE kind = 'workflow_approval' AND name = 'remembered b'`,
    );
    assert.equal(approvals[0].n, 1, 'b was started once');
    assert.equal((await jobNodes(t, wj)).b.job, b);
    assert.equal(elsewhere.graphs.get(wj)?.nodes_started, 2);
    await answer(t, wj, 'b', 'approve');
    await answer(t, wj, 'c', 'approve');
    assert.equal((await finished(t, wj)).status, 'successful');
  });
});
