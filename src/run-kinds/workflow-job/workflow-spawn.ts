/**
 * How a workflow node of each template kind starts its run, inside the workflow pass's transaction
 * and through the launch service (its gates apply). One entry per node template kind.
 */
import type { RequestContext, Services } from '../../api/context.ts';
import type { Queryable, Row } from '../../db/database.ts';
import type { LaunchResult } from '../../runs/launch.ts';
import { finishRun, insertRun } from '../../runs/lifecycle.ts';
import type { RunKindRef } from '../../runs/run-kind.ts';
import { JOB } from '../job/create-job.ts';
import { workflowNodeJobLauncher } from '../job/workflow-node-launch.ts';
import { INVENTORY_UPDATE, inventoryUpdateLauncher } from '../inventory-update/queue.ts';
import { PROJECT_UPDATE, projectUpdateLauncher } from '../project-update/queue.ts';
import { SYSTEM_JOB, workflowNodeSystemJobLauncher } from '../system-job/launcher.ts';
import { approvalLauncher } from '../workflow-approval/launch.ts';
import { nestedWorkflowLauncher } from './launch.ts';
import { WORKFLOW_APPROVAL, WORKFLOW_JOB } from './workflow-job-kind-ref.ts';

export interface Spawn {
  tx: Queryable;
  services: Services;
  /** The workflow job's creator: the node's run is his. */
  ctx: RequestContext;
  node: Row;
  workflowJob: Row;
  extraVars: Record<string, unknown>;
}

interface NodeKind {
  table: string;
  run: RunKindRef;
  launch(spawn: Spawn, template: Row): Promise<LaunchResult>;
}

/** Runs started as updates answer to the workflow, not to a person. */
const asWorkflowLaunch = async (tx: Queryable, launched: LaunchResult) => {
  if (launched.ok) await tx.query(`UPDATE unified_jobs SET launch_type = 'workflow' WHERE id = $1`, [launched.run.id]);
  return launched;
};

export const NODE_KINDS: Record<string, NodeKind> = {
  job_template: {
    table: 'job_templates', run: JOB,
    launch: (s, template) => s.services.launches.launchWithin(s.tx, s.ctx, workflowNodeJobLauncher, template as never, { node: s.node, workflowJob: s.workflowJob, extraVars: s.extraVars }),
  },
  workflow_job_template: {
    table: 'workflow_job_templates', run: WORKFLOW_JOB,
    launch: (s, template) => s.services.launches.launchWithin(s.tx, s.ctx, nestedWorkflowLauncher, template, { node: s.node, workflowJob: s.workflowJob, extraVars: s.extraVars }),
  },
  project: {
    table: 'projects', run: PROJECT_UPDATE,
    launch: async (s, template) => asWorkflowLaunch(s.tx, await s.services.launches.launchWithin(s.tx, s.ctx, projectUpdateLauncher, template, null)),
  },
  inventory_source: {
    table: 'inventory_sources', run: INVENTORY_UPDATE,
    launch: async (s, template) => asWorkflowLaunch(s.tx, await s.services.launches.launchWithin(s.tx, s.ctx, inventoryUpdateLauncher, template, null)),
  },
  system_job_template: {
    table: 'system_job_templates', run: SYSTEM_JOB,
    launch: (s, template) => s.services.launches.launchWithin(s.tx, s.ctx, workflowNodeSystemJobLauncher, template, { node: s.node }),
  },
  workflow_approval_template: {
    table: 'workflow_approval_templates', run: WORKFLOW_APPROVAL,
    launch: (s, template) => s.services.launches.launchWithin(s.tx, s.ctx, approvalLauncher, template, { workflowJob: s.workflowJob }),
  },
};

/** What a refusal says, for the failed run that stands for the node. */
function refusalText(body: Record<string, unknown>): string {
  return Object.entries(body).map(([field, problem]) => `${field}: ${[problem].flat().join(' ')}`).join('; ');
}

/**
 * Starts the node's run and answers its id. A launch that is refused (a gate, a survey answer or
 * a password missing) leaves a failed run of the node's kind in its place, so the failure path runs.
 */
export async function spawnNode(spawn: Spawn, kind: string): Promise<number> {
  const nodeKind = NODE_KINDS[kind];
  const [template] = nodeKind ? await spawn.tx.query(`SELECT * FROM ${nodeKind.table} WHERE id = $1`, [spawn.node.unified_job_template_id]) : [];
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
