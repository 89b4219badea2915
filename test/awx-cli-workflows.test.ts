import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newUser, type TestApp } from './helpers/app.ts';
import { answer, finished, launchWorkflow, makeWorkflow, nodeRun } from './helpers/workflows.ts';

// What awxkit's `awx workflow_job_templates launch --monitor/--wait` reads while a workflow runs.
describe('awx CLI: following a workflow job', () => {
  let t: TestApp;
  let org: number;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t, { name: 'CLI workflows' })).id;
  });
  after(() => t.close());

  it('lists the runs of a workflow job by unified_job_node__workflow_job, only for those who may see it', async () => {
    const wf = await makeWorkflow(t, org, 'followed', { first: {}, second: {} }, [['first', 'success', 'second']]);
    const other = await makeWorkflow(t, org, 'other', { only: {} }, []);
    const workflowJob = await launchWorkflow(t, wf.id);
    const otherJob = await launchWorkflow(t, other.id);
    const first = await answer(t, workflowJob, 'first', 'approve');
    const second = await answer(t, workflowJob, 'second', 'approve');
    await nodeRun(t, otherJob, 'only');
    assert.equal((await finished(t, workflowJob)).status, 'successful');

    const runs = await t.get(`/api/v2/unified_jobs/?unified_job_node__workflow_job=${workflowJob}&order_by=finished`);
    assert.equal(runs.status, 200, runs.text);
    assert.deepEqual(runs.body.results.map((r: any) => [r.id, r.type, r.status]), [[first, 'workflow_approval', 'successful'], [second, 'workflow_approval', 'successful']]);

    const outsider = await newUser(t, { admin: (await newOrg(t, { name: 'CLI elsewhere' })).id });
    const theirs = await t.get(`/api/v2/unified_jobs/?unified_job_node__workflow_job=${workflowJob}`, { as: outsider });
    assert.equal(theirs.status, 200, theirs.text);
    assert.equal(theirs.body.count, 0);
  });

  it('OPTIONS of launch/ describes what a launch takes (awxkit builds its arguments from it)', async () => {
    const wf = await makeWorkflow(t, org, 'described', { only: {} }, []);
    const options = await t.request('OPTIONS', `/api/v2/workflow_job_templates/${wf.id}/launch/`);
    assert.equal(options.status, 200, options.text);
    assert.deepEqual(Object.keys(options.body.actions.POST).sort(), ['extra_vars', 'inventory', 'job_tags', 'labels', 'limit', 'scm_branch', 'skip_tags']);
  });
});
