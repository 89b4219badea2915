/** What the node of a workflow job launches its template with, for every node template kind that takes prompts. */
import type { Queryable, Row } from '../../db/database.ts';
import { savedPrompts } from '../../runs/accept-prompts.ts';
import type { TemplateFacet } from '../../runs/prompts.ts';
import { WORKFLOW_PROMPTS } from './prompts.ts';
import type { WorkflowNodeLaunch } from '../../runs/run-kind.ts';

/** The credentials saved on a workflow job's node: as the pass read them, or read now. */
export async function linkedCredentials(tx: Queryable, launch: Pick<WorkflowNodeLaunch, 'node' | 'credentialIds'>): Promise<readonly number[]> {
  if (launch.credentialIds) return launch.credentialIds;
  return (await tx.query<{ id: number }>('SELECT credential_id AS id FROM workflow_job_node_credentials WHERE node_id = $1 ORDER BY 1', [launch.node.id])).map((r) => r.id);
}

/**
 * The node's saved prompts under the workflow job's values of the prompts a workflow passes down
 * (AWX: the workflow job's win over the node's), and the variables the workflow pass merged. The
 * template's ask flags decide, through acceptPrompts, which of them it takes.
 */
export function nodePrompts(
  facet: TemplateFacet, node: Row, workflowJob: Row, credentialIds: readonly number[], extraVars: Record<string, unknown>,
): Record<string, unknown> {
  const given = savedPrompts(facet, { ...node, extra_data: null }, { credentials: credentialIds });
  for (const spec of WORKFLOW_PROMPTS) {
    if (spec.passesDown && spec.shape === 'column' && workflowJob[spec.column!]) given[spec.field] = workflowJob[spec.column!];
  }
  return { ...given, extra_vars: extraVars };
}
