/**
 * A workflow template node's saved labels and instance groups (AWX's
 * /workflow_job_template_nodes/{id}/labels/ and instance_groups/), changed by the workflow's admins.
 */
import type { RequestContext } from '../../api/context.ts';
import { forbidden } from '../../api/errors.ts';
import { orderedJoinTable, type Relation } from '../../api/relations.ts';
import { isVisible } from '../../api/list.ts';
import type { Queryable } from '../../db/database.ts';
import type { WorkflowJobTemplateNodeRow } from '../../db/tables.ts';
import { assertWorkflowAdmin } from './workflow-access.ts';
import { launchConfigLabels } from '../labels/launch-config-labels.ts';

async function assertMayChange(ctx: RequestContext, tx: Queryable, nodeId: number): Promise<void> {
  const [node] = await tx.query<Pick<WorkflowJobTemplateNodeRow, 'workflow_job_template_id'>>('SELECT workflow_job_template_id FROM workflow_job_template_nodes WHERE id = $1', [nodeId]);
  if (!node) throw forbidden();
  await assertWorkflowAdmin(ctx, tx, node.workflow_job_template_id);
}

export const nodeLabels = (): Relation =>
  launchConfigLabels({ name: 'workflow_job_template_node', table: 'workflow_job_template_node_labels', column: 'node_id', assertMayChange });

export function nodeInstanceGroups(): Relation {
  return {
    ...orderedJoinTable('instance_group', 'workflow_job_template_node_instance_groups', 'node_id', 'instance_group_id'),
    async authorize(ctx, tx, nodeId, groupId, detach) {
      await assertMayChange(ctx, tx, nodeId);
      if (detach) return;
      if (!(await isVisible(tx, ctx, ctx.service.resources.get('instance_group'), groupId))) throw forbidden();
    },
  };
}
