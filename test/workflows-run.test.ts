// Running workflows: paths by outcome, convergence, do_not_run, failure explanations, conditions, nesting, cancel, relaunch.
// Approval nodes stand in for runs whose outcome the test decides.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';
import { answer, finished, jobNodes, launchWorkflow, makeWorkflow, nodeRun } from './helpers/workflows.ts';

describe('running workflows', () => {
  let t: TestApp;
  let org: number;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t, { name: 'Runs' })).id;
  });
  after(() => t.close());

  it('follows the success path and leaves the failure path undone', async () => {
    const wf = await makeWorkflow(t, org, 'success path', { a: {}, b: {}, c: {} }, [['a', 'success', 'b'], ['a', 'failure', 'c']]);
    const wj = await launchWorkflow(t, wf.id);
    await answer(t, wj, 'a', 'approve');
    await answer(t, wj, 'b', 'approve');
    const done = await finished(t, wj);
    assert.equal(done.status, 'successful', done.job_explanation);
    const nodes = await jobNodes(t, wj);
    assert.equal(nodes.c.do_not_run, true);
    assert.equal(nodes.c.job, null);
    assert.equal(nodes.a.summary_fields.job.status, 'successful');
    assert.equal(nodes.a.summary_fields.job.type, 'workflow_approval');
    const template = (await t.get(`/api/v2/workflow_job_templates/${wf.id}/`)).body;
    assert.equal(template.status, 'successful');
    assert.equal(template.last_job_failed, false);
  });

  it('runs the failure handling path, and a handled failure leaves the workflow successful', async () => {
    const wf = await makeWorkflow(t, org, 'failure path', { a: {}, b: {}, c: {} }, [['a', 'success', 'b'], ['a', 'failure', 'c']]);
    const wj = await launchWorkflow(t, wf.id);
    await answer(t, wj, 'a', 'deny');
    await answer(t, wj, 'c', 'approve');
    const done = await finished(t, wj);
    assert.equal(done.status, 'successful', done.job_explanation);
    assert.equal((await jobNodes(t, wj)).b.do_not_run, true);
  });

  it('fails with "No error handling path" naming the node and its status', async () => {
    const wf = await makeWorkflow(t, org, 'no handler', { a: {}, b: {} }, [['a', 'success', 'b']]);
    const wj = await launchWorkflow(t, wf.id);
    await answer(t, wj, 'a', 'deny');
    const done = await finished(t, wj);
    assert.equal(done.status, 'failed');
    const nodes = await jobNodes(t, wj);
    assert.equal(done.job_explanation,
      `No error handling path for workflow job node(s) [(${nodes.a.id},failed)]. Workflow job node(s) missing unified job template and error handling path [].`);
    assert.equal(nodes.b.do_not_run, true);
  });

  it('takes always edges whatever the outcome', async () => {
    const wf = await makeWorkflow(t, org, 'always', { a: {}, b: {} }, [['a', 'always', 'b']]);
    const wj = await launchWorkflow(t, wf.id);
    await answer(t, wj, 'a', 'deny');
    await answer(t, wj, 'b', 'approve');
    assert.equal((await finished(t, wj)).status, 'successful');
  });

  it('runs an ANY node once one parent leads to it, an ALL node only when all do', async () => {
    const wf = await makeWorkflow(t, org, 'convergence', { a: {}, b: {}, any: {}, all: { converge: true } },
      [['a', 'success', 'any'], ['b', 'always', 'any'], ['a', 'success', 'all'], ['b', 'success', 'all']]);
    const wj = await launchWorkflow(t, wf.id);
    await answer(t, wj, 'a', 'approve');
    // ANY waits for every parent that runs: a workflow pass after the approval leaves it alone.
    await t.settle();
    assert.equal((await jobNodes(t, wj)).any.job, null);
    await answer(t, wj, 'b', 'deny');
    await answer(t, wj, 'any', 'approve');
    const done = await finished(t, wj);
    const nodes = await jobNodes(t, wj);
    assert.equal(nodes.all.do_not_run, true);
    assert.equal(nodes.all.job, null);
    assert.equal(done.status, 'successful', done.job_explanation);

    const both = await launchWorkflow(t, wf.id);
    await answer(t, both, 'a', 'approve');
    await answer(t, both, 'b', 'approve');
    await answer(t, both, 'any', 'approve');
    await answer(t, both, 'all', 'approve');
    assert.equal((await finished(t, both)).status, 'successful');
  });

  it('marks do_not_run down a whole branch', async () => {
    const wf = await makeWorkflow(t, org, 'branch', { a: {}, b: {}, c: {}, d: {} }, [['a', 'success', 'b'], ['b', 'success', 'c'], ['c', 'always', 'd'], ['a', 'failure', 'd']]);
    const wj = await launchWorkflow(t, wf.id);
    await answer(t, wj, 'a', 'deny');
    await answer(t, wj, 'd', 'approve');
    assert.equal((await finished(t, wj)).status, 'successful');
    const nodes = await jobNodes(t, wj);
    assert.deepEqual([nodes.b.do_not_run, nodes.c.do_not_run, nodes.d.do_not_run], [true, true, false]);
  });

  it('takes a conditional edge only when its condition holds, and records conditions that fail to evaluate', async () => {
    const wf = await makeWorkflow(t, org, 'conditions', { a: {}, yes: {}, no: {}, broken: {}, handler: {} }, [
      ['a', 'success', 'yes', 'status == "successful" and job.type is not defined'],
      ['a', 'success', 'no', 'job.name == "something else"'],
      ['a', 'success', 'broken', 'artifacts | nosuchfilter'],
      ['a', 'failure', 'handler'],
    ]);
    const wj = await launchWorkflow(t, wf.id);
    await answer(t, wj, 'a', 'approve');
    await answer(t, wj, 'yes', 'approve');
    const done = await finished(t, wj);
    assert.equal(done.status, 'successful', done.job_explanation);
    const nodes = await jobNodes(t, wj);
    assert.equal(nodes.no.do_not_run, true);
    assert.equal(nodes.broken.do_not_run, true);
    assert.equal(nodes.handler.do_not_run, true);
    assert.match(nodes.broken.condition_errors[String(nodes.a.id)], /nosuchfilter/);
    assert.deepEqual(nodes.no.condition_errors, {});
    assert.deepEqual(nodes.a.edge_conditions.success[String(nodes.no.id)], 'job.name == "something else"');
  });

  it('runs a nested workflow as a child workflow job', async () => {
    const inner = await makeWorkflow(t, org, 'inner', { step: {} }, []);
    const outer = await makeWorkflow(t, org, 'outer', { sub: { template: inner.id }, after: {} }, [['sub', 'success', 'after']]);
    const wj = await launchWorkflow(t, outer.id, {});
    const child = await nodeRun(t, wj, 'sub');
    const childJob = (await t.get(`/api/v2/workflow_jobs/${child}/`)).body;
    assert.equal(childJob.launch_type, 'workflow');
    assert.equal(childJob.workflow_job_template, inner.id);
    await answer(t, child, 'step', 'approve');
    assert.equal((await finished(t, child)).status, 'successful');
    await answer(t, wj, 'after', 'approve');
    assert.equal((await finished(t, wj)).status, 'successful');
  });

  it('refuses a workflow that would run inside itself', async () => {
    const a = await makeWorkflow(t, org, 'loop a', {}, []);
    const b = await makeWorkflow(t, org, 'loop b', { back: { template: a.id } }, []);
    const res = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: a.id, identifier: 'to-b', unified_job_template: b.id });
    assert.equal(res.status, 201, res.text);
    const wj = await launchWorkflow(t, a.id);
    const done = await finished(t, wj);
    assert.equal(done.status, 'failed');
    const inner = await nodeRun(t, wj, 'to-b');
    const innerDone = await waitForRun(t, `/api/v2/workflow_jobs/${inner}/`);
    const back = (await jobNodes(t, inner)).back;
    const failedRun = (await t.get(`/api/v2/workflow_jobs/${back.job}/`)).body;
    assert.equal(innerDone.status, 'failed');
    assert.match(failedRun.job_explanation, /recursion/);
  });

  it('fails an approval that nobody answers in time', async () => {
    const wf = await makeWorkflow(t, org, 'timeout', { gate: { approval: { timeout: 1 } } }, []);
    const wj = await launchWorkflow(t, wf.id);
    const approval = await nodeRun(t, wj, 'gate');
    const ended = await waitForRun(t, `/api/v2/workflow_approvals/${approval}/`, 15_000);
    assert.equal(ended.status, 'failed');
    assert.equal(ended.timed_out, true);
    assert.match(ended.job_explanation, /has expired after 1 seconds/);
    assert.equal((await finished(t, wj)).status, 'failed');
    const late = await t.post(`/api/v2/workflow_approvals/${approval}/approve/`, {});
    assert.equal(late.status, 400);
  });

  it('cancels a running workflow job and its pending nodes', async () => {
    const wf = await makeWorkflow(t, org, 'cancel', { a: {}, b: {} }, [['a', 'success', 'b']]);
    const wj = await launchWorkflow(t, wf.id);
    const approval = await nodeRun(t, wj, 'a');
    await eventually(async () => (await t.get(`/api/v2/workflow_jobs/${wj}/`)).body.status === 'running');
    assert.equal((await t.post(`/api/v2/workflow_jobs/${wj}/cancel/`, {})).status, 202);
    const done = await finished(t, wj);
    assert.equal(done.status, 'canceled');
    assert.equal((await t.get(`/api/v2/workflow_approvals/${approval}/`)).body.status, 'canceled');
    assert.equal((await jobNodes(t, wj)).b.job, null);
  });

  it('relaunches with the same values and graph', async () => {
    const wf = await makeWorkflow(t, org, 'relaunch', { a: {} }, [], { ask_variables_on_launch: true });
    const first = await launchWorkflow(t, wf.id, { extra_vars: { colour: 'blue' } });
    await answer(t, first, 'a', 'approve');
    await finished(t, first);
    const res = await t.post(`/api/v2/workflow_jobs/${first}/relaunch/`, {});
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.launch_type, 'relaunch');
    assert.deepEqual(JSON.parse(res.body.extra_vars), { colour: 'blue' });
    await answer(t, res.body.id, 'a', 'approve');
    assert.equal((await finished(t, res.body.id)).status, 'successful');
  });

  it('fails the path of a node whose template was deleted', async () => {
    const doomed = await makeWorkflow(t, org, 'doomed', {}, []);
    const wf = await makeWorkflow(t, org, 'missing', { gone: { template: doomed.id }, next: {} }, [['gone', 'success', 'next']]);
    assert.equal((await t.delete(`/api/v2/workflow_job_templates/${doomed.id}/`)).status, 204);
    assert.equal((await t.get(`/api/v2/workflow_job_template_nodes/${wf.nodes.gone}/`)).body.unified_job_template, null);
    const wj = await launchWorkflow(t, wf.id);
    const done = await finished(t, wj);
    const nodes = await jobNodes(t, wj);
    assert.equal(done.status, 'failed');
    assert.equal(done.job_explanation,
      `No error handling path for workflow job node(s) []. Workflow job node(s) missing unified job template and error handling path [${nodes.gone.id}].`);
    assert.equal(nodes.next.do_not_run, true);
  });

  it('lists workflow jobs and approvals among unified jobs', async () => {
    const kinds = new Set((await t.get('/api/v2/unified_jobs/?page_size=200')).body.results.map((r: any) => r.type));
    assert.ok(kinds.has('workflow_job') && kinds.has('workflow_approval'), [...kinds].join(','));
  });
});
