import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';
import { eventually, waitForRun } from './jobs.ts';
import { newWorkflow, type Edge, type NodeSpec } from './factories.ts';

export type { NodeSpec } from './factories.ts';

/** Creates a workflow of `nodes` (by identifier) and edges [parent, kind, child, condition?]; answers the workflow and node ids (see newWorkflow). */
export async function makeWorkflow(
  t: TestApp, org: number, name: string, nodes: Record<string, NodeSpec>, edges: Edge[], fields: Record<string, unknown> = {},
): Promise<{ id: number; nodes: Record<string, number> }> {
  const workflow = await newWorkflow(t, org, { ...fields, name, nodes, edges });
  return { id: workflow.id, nodes: workflow.nodes };
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
