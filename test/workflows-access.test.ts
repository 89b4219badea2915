// Who may launch, see, cancel and approve: plain users, another organization's admin, the workflow's roles.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { finished, launchWorkflow, makeWorkflow, nodeRun } from './helpers/workflows.ts';

describe('workflow access', () => {
  let t: TestApp;
  let org: any;
  let plain: User;
  let otherAdmin: User;
  let approver: User;
  let executor: User;
  let wf: { id: number; nodes: Record<string, number> };

  before(async () => {
    t = await createTestApp();
    org = await newOrg(t, { name: 'Guarded' });
    const other = await newOrg(t, { name: 'Other' });
    plain = await newUser(t, { member: org.id });
    otherAdmin = await newUser(t, { admin: other.id });
    approver = await newUser(t, { member: org.id });
    executor = await newUser(t, { member: org.id });
    wf = await makeWorkflow(t, org.id, 'guarded', { gate: {} }, []);
    await grant(t, approver, `/api/v2/workflow_job_templates/${wf.id}/`, 'approval_role');
    await grant(t, executor, `/api/v2/workflow_job_templates/${wf.id}/`, 'execute_role');
  });
  after(() => t.close());

  it('lets only those with execute_role launch, and shows the launch prompts to them', async () => {
    for (const who of [plain, otherAdmin, approver]) {
      assert.equal((await t.post(`/api/v2/workflow_job_templates/${wf.id}/launch/`, {}, { as: who })).status, 403);
    }
    const described = await t.get(`/api/v2/workflow_job_templates/${wf.id}/launch/`, { as: executor });
    assert.equal(described.status, 200, described.text);
    assert.equal(described.body.can_start_without_user_input, true);
    const launched = await t.post(`/api/v2/workflow_job_templates/${wf.id}/launch/`, { limit: 'ignored' }, { as: executor });
    assert.equal(launched.status, 201, launched.text);
    assert.deepEqual(launched.body.ignored_fields, { limit: 'ignored' });
    assert.equal(launched.body.summary_fields.created_by.username, executor.username);
    // The executor cannot approve; the approver can; nobody else sees the approval.
    const approval = await nodeRun(t, launched.body.workflow_job, 'gate');
    assert.equal((await t.get(`/api/v2/workflow_approvals/${approval}/`, { as: executor })).body.can_approve_or_deny, false);
    assert.equal((await t.post(`/api/v2/workflow_approvals/${approval}/approve/`, {}, { as: executor })).status, 403);
    for (const who of [plain, otherAdmin]) {
      assert.equal((await t.get(`/api/v2/workflow_approvals/${approval}/`, { as: who })).status, 403);
      assert.equal((await t.post(`/api/v2/workflow_approvals/${approval}/approve/`, {}, { as: who })).status, 403);
      assert.equal((await t.post(`/api/v2/workflow_approvals/${approval}/deny/`, {}, { as: who })).status, 403);
      assert.equal((await t.get('/api/v2/workflow_approvals/', { as: who })).body.count, 0);
      assert.equal((await t.get('/api/v2/workflow_jobs/', { as: who })).body.count, 0);
      assert.equal((await t.get(`/api/v2/workflow_jobs/${launched.body.workflow_job}/workflow_nodes/`, { as: who })).status, 403);
      assert.equal((await t.get('/api/v2/workflow_job_nodes/', { as: who })).body.count, 0);
      assert.equal((await t.post(`/api/v2/workflow_jobs/${launched.body.workflow_job}/cancel/`, {}, { as: who })).status, 403);
      assert.equal((await t.post(`/api/v2/workflow_jobs/${launched.body.workflow_job}/relaunch/`, {}, { as: who })).status, 403);
    }
    const listed = await t.get('/api/v2/workflow_approvals/?status=pending', { as: approver });
    assert.deepEqual(listed.body.results.map((a: any) => a.id), [approval]);
    assert.equal(listed.body.results[0].can_approve_or_deny, true);
    assert.equal((await t.post(`/api/v2/workflow_approvals/${approval}/approve/`, {}, { as: approver })).status, 204);
    const stored = (await t.get(`/api/v2/workflow_approvals/${approval}/`, { as: approver })).body;
    assert.equal(stored.status, 'successful');
    assert.equal(stored.approved_or_denied_by, approver.id);
    const again = await t.post(`/api/v2/workflow_approvals/${approval}/deny/`, {}, { as: approver });
    assert.equal(again.status, 400);
    assert.equal((await finished(t, launched.body.workflow_job)).status, 'successful');
  });

  it('gives the organization approval_role the right to approve', async () => {
    const orgApprover = await newUser(t, { member: org.id });
    await grant(t, orgApprover, `/api/v2/organizations/${org.id}/`, 'approval_role');
    const wj = await launchWorkflow(t, wf.id);
    const approval = await nodeRun(t, wj, 'gate');
    assert.equal((await t.post(`/api/v2/workflow_approvals/${approval}/deny/`, {}, { as: orgApprover })).status, 204);
    assert.equal((await finished(t, wj)).status, 'failed');
  });

  it('keeps another organization admin from attaching nodes to templates he cannot use', async () => {
    const other = (await t.get('/api/v2/organizations/?name=Other')).body.results[0];
    const own = await t.post('/api/v2/workflow_job_templates/', { name: 'theirs', organization: other.id }, { as: otherAdmin });
    assert.equal(own.status, 201, own.text);
    const res = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: own.body.id, unified_job_template: wf.id }, { as: otherAdmin });
    assert.equal(res.status, 403);
    // Nor copy, nor edit, a workflow he cannot see.
    assert.equal((await t.post(`/api/v2/workflow_job_templates/${wf.id}/copy/`, { name: 'stolen' }, { as: otherAdmin })).status, 403);
    assert.equal((await t.delete(`/api/v2/workflow_job_templates/${wf.id}/`, { as: otherAdmin })).status, 403);
    assert.equal((await t.post(`/api/v2/workflow_job_template_nodes/${wf.nodes.gate}/create_approval_template/`, { name: 'x' }, { as: otherAdmin })).status, 403);
    assert.equal((await t.get(`/api/v2/workflow_job_templates/${wf.id}/survey_spec/`, { as: otherAdmin })).status, 403);
  });
});
