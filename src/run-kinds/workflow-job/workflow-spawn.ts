/**
 * How a workflow node of each template kind starts its run, inside the workflow pass's transaction
 * and through the launch service (its gates apply): the workflowNode launcher of the template's run kind.
 */
import type { RequestContext } from '../../api/context.ts';
import type { Queryable, Row } from '../../db/database.ts';
import type { LaunchResult } from '../../runs/launch.ts';
import type { LaunchMemo } from '../../runs/launch-memo.ts';
import { finishRun, insertRun } from '../../runs/lifecycle.ts';
import type { RunKindRef, WorkflowNodeLaunch } from '../../runs/run-kind.ts';
import { JOB } from '../job/create-job.ts';
import type { RunServices } from '../../runs/run-services.ts';

export interface Spawn {
  tx: Queryable;
  services: RunServices;
  /** The workflow job's creator: the node's run is his. */
  ctx: RequestContext;
  node: WorkflowNodeLaunch['node'];
  workflowJob: WorkflowNodeLaunch['workflowJob'];
  extraVars: Record<string, unknown>;
  /** The node's credentials, read by the pass with its other starting nodes'. */
  credentialIds: readonly number[];
  /** Reads shared by the nodes the pass starts in its transaction (templates, their links, host counts). */
  memo: LaunchMemo;
}

interface NodeKind {
  table: string;
  run: RunKindRef;
  launch(spawn: Spawn, template: Row): Promise<LaunchResult>;
}

/**
 * What a node of a template kind (unified_job_templates.kind: job_template, project...) starts: the
 * run kind whose templates are that resource's and that has a workflow-node launcher.
 */
export function nodeKindOf(services: RunServices, templateKind: string): NodeKind | undefined {
  const table = services.resources.find(templateKind)?.table;
  const kind = table === undefined ? undefined : services.runKinds.forTemplateTable(table);
  const launcher = kind?.launchers?.workflowNode;
  if (!table || !kind || !launcher) return undefined;
  return {
    table, run: kind,
    launch: (s, template) => s.services.launches.launchWithin(s.tx, s.ctx, launcher, template, { node: s.node, workflowJob: s.workflowJob, extraVars: s.extraVars, credentialIds: s.credentialIds, memo: s.memo }),
  };
}

/** What a refusal says, for the failed run that stands for the node. */
function refusalText(body: Record<string, unknown>): string {
  return Object.entries(body).map(([field, problem]) => `${field}: ${[problem].flat().join(' ')}`).join('; ');
}

/**
 * Starts the node's run and answers its id. A launch that is refused (a gate, a survey answer or
 * a password missing) leaves a failed run of the node's kind in its place, so the failure path runs.
 */
export async function spawnNode(spawn: Spawn, kind: string): Promise<number> {
  const nodeKind = nodeKindOf(spawn.services, kind);
  const templateId = spawn.node.unified_job_template_id;
  const [template] = nodeKind
    ? await spawn.memo.once(`template:${nodeKind.table}:${templateId}`, () => spawn.tx.query(`SELECT * FROM ${nodeKind.table} WHERE id = $1`, [templateId]))
    : [];
  if (nodeKind && template) {
    const launched = await nodeKind.launch(spawn, template);
    if (launched.ok) return launched.run.id;
    return failedInPlace(spawn, nodeKind.run, template, `Could not start the node's run: ${refusalText(launched.refusal.body)}`);
  }
  return failedInPlace(spawn, nodeKind?.run ?? JOB, { id: null, name: '' }, `Workflow node ${spawn.node.id} has a template of a kind workflows cannot run (${kind}).`);
}

async function failedInPlace(spawn: Spawn, kind: RunKindRef, template: Row, explanation: string): Promise<number> {
  const run = await insertRun(spawn.tx, spawn.ctx, kind, {
    name: template.name, unified_job_template_id: template.id, launch_type: 'workflow', organization_id: spawn.workflowJob.organization_id,
  });
  await finishRun(spawn.tx, spawn.services.runKinds, run, { status: 'failed', explanation });
  return run.id;
}
