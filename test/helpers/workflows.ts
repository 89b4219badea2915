import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';
import { eventually, waitForRun } from './jobs.ts';

/** A node spec: an approval node (the default: answered by the test), or a template id. */
export interface NodeSpec {
  template?: number;
  approval?: { timeout?: number };
  converge?: boolean;
  extra?: Record<string, unknown>;
}

/** Creates a workflow of `nodes` (by identifier) and edges [parent, kind, child, condition?]; answers the workflow and node ids. */
export async function makeWorkflow(
  t: TestApp, org: number, name: string, nodes: Record<string, NodeSpec>, edges: Array<[string, 'success' | 'failure' | 'always', string, string?]>, fields: Record<string, unknown> = {},
): Promise<{ id: number; nodes: Record<string, number> }> {
  const wf = await t.post('/api/v2/workflow_job_templates/', { name, organization: org, ...fields });
  assert.equal(wf.status, 201, wf.text);
  const ids: Record<string, number> = {};
  for (const [identifier, spec] of Object.entries(nodes)) {
    const res = await t.post('/api/v2/workflow_job_template_nodes/', {
      workflow_job_template: wf.body.id, identifier, unified_job_template: spec.template ?? null, all_parents_must_converge: spec.converge ?? false,
      ...(spec.extra && { extra_data: spec.extra }),
    });
    assert.equal(res.status, 201, res.text);
    ids[identifier] = res.body.id;
    if (!spec.template) {
      const made = await t.post(`/api/v2/workflow_job_template_nodes/${res.body.id}/create_approval_template/`, { name: `${name} ${identifier}`, timeout: spec.approval?.timeout ?? 0 });
      assert.equal(made.status, 201, made.text);
    }
  }
  for (const [parent, kind, child, condition] of edges) {
    const res = await t.post(`/api/v2/workflow_job_template_nodes/${ids[parent]}/${kind}_nodes/`, { id: ids[child], ...(condition && { condition }) });
    assert.equal(res.status, 204, res.text);
  }
  return { id: wf.body.id, nodes: ids };
}

export async function launchWorkflow(t: TestApp, id: number, body: Record<string, unknown> = {}): Promise<number> {
  const res = await t.post(`/api/v2/workflow_job_templates/${id}/launch/`, body);
  assert.equal(res.status, 201, res.text);
  return res.body.workflow_job;
}

/** The workflow job's nodes by identifier. */
export async function jobNodes(t: TestApp, workflowJob: number): Promise<Record<string, any>> {
  const res = await t.get(`/api/v2/workflow_jobs/${workflowJob}/workflow_nodes/?page_size=200`);
  assert.equal(res.status, 200, res.text);
  return Object.fromEntries(res.body.results.map((n: any) => [n.identifier, n]));
}

/** Waits until the node has started its run and answers the run's id. */
export async function nodeRun(t: TestApp, workflowJob: number, identifier: string): Promise<number> {
  return eventually(async () => (await jobNodes(t, workflowJob))[identifier]?.job, 30_000, `node ${identifier} of workflow job ${workflowJob} started`);
}

/** Waits for the node's approval and answers it. */
export async function answer(t: TestApp, workflowJob: number, identifier: string, action: 'approve' | 'deny'): Promise<number> {
  const approval = await nodeRun(t, workflowJob, identifier);
  const res = await t.post(`/api/v2/workflow_approvals/${approval}/${action}/`, {});
  assert.equal(res.status, 204, res.text);
  return approval;
}

export const finished = (t: TestApp, workflowJob: number) => waitForRun(t, `/api/v2/workflow_jobs/${workflowJob}/`);
