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
  launchAll(spawns: readonly Spawn[], template: Row): Promise<LaunchResult[]>;
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
    launchAll: ([first, ...rest], template) => first.services.launches.launchAllWithin(
      first.tx, first.ctx, launcher, template,
      [first, ...rest].map((s) => ({ node: s.node, workflowJob: s.workflowJob, extraVars: s.extraVars, credentialIds: s.credentialIds, memo: s.memo })),
    ),
  };
}

/** What a refusal says, for the failed run that stands for the node: its words, not the structured parts (a scanner's findings). */
function refusalText(body: Record<string, unknown>): string {
  return Object.entries(body)
    .map(([field, problem]) => [field, [problem].flat().filter((p) => typeof p === 'string' || typeof p === 'number')] as const)
    .filter(([, words]) => words.length)
    .map(([field, words]) => `${field}: ${words.join(' ')}`).join('; ');
}

/**
 * Starts the runs of nodes of one template, as one person (the workflow job's creator), and answers
 * their ids in the order given: stored and queued together, so the template's row is locked once,
 * at the end. A launch that is refused (a gate, a survey answer or a password missing) leaves a
 * failed run of the node's kind in its place (`ended`), so the failure path runs.
 */
export async function spawnNodes(spawns: readonly Spawn[], kind: string): Promise<{ job: number; ended: boolean }[]> {
  const [first] = spawns;
  const nodeKind = nodeKindOf(first.services, kind);
  const templateId = first.node.unified_job_template_id;
  const [template] = nodeKind
    ? await first.memo.once(`template:${nodeKind.table}:${templateId}`, () => first.tx.query(`SELECT * FROM ${nodeKind.table} WHERE id = $1`, [templateId]))
    : [];
  const ids: { job: number; ended: boolean }[] = [];
  if (nodeKind && template) {
    const launched = await nodeKind.launchAll(spawns, template);
    for (const [i, result] of launched.entries()) {
      ids.push(result.ok ? { job: result.run.id, ended: false } : await failedInPlace(spawns[i], nodeKind.run, template, `Could not start the node's run: ${refusalText(result.refusal.body)}`));
    }
    return ids;
  }
  for (const spawn of spawns) {
    ids.push(await failedInPlace(spawn, nodeKind?.run ?? JOB, { id: null, name: '' }, `Workflow node ${spawn.node.id} has a template of a kind workflows cannot run (${kind}).`));
  }
  return ids;
}

async function failedInPlace(spawn: Spawn, kind: RunKindRef, template: Row, explanation: string): Promise<{ job: number; ended: true }> {
  const run = await insertRun(spawn.tx, spawn.ctx, kind, {
    name: template.name, unified_job_template_id: template.id, launch_type: 'workflow', organization_id: spawn.workflowJob.organization_id,
  });
  await finishRun(spawn.tx, spawn.services.runKinds, run, { status: 'failed', explanation });
  return { job: run.id, ended: true };
}
