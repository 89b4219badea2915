/**
 * A workflow template node's saved labels and instance groups (AWX's
 * /workflow_job_template_nodes/{id}/labels/ and instance_groups/), changed by the workflow's admins.
 */
import { hasObjectRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden, ValidationError } from '../../api/errors.ts';
import { joinTable, orderedJoinTable, type Relation } from '../../api/relations.ts';
import { isVisible } from '../../api/list.ts';
import type { Queryable, ResourceRow } from '../../db/database.ts';
import { createObject } from '../../api/crud.ts';
import { recordActivity } from '../../activity/record.ts';
import type { LabelRow, WorkflowJobTemplateNodeRow } from '../../db/tables.ts';
import { assertWorkflowAdmin } from './workflow-access.ts';

async function assertMayChange(ctx: RequestContext, tx: Queryable, nodeId: number): Promise<void> {
  const [node] = await tx.query<Pick<WorkflowJobTemplateNodeRow, 'workflow_job_template_id'>>('SELECT workflow_job_template_id FROM workflow_job_template_nodes WHERE id = $1', [nodeId]);
  if (!node) throw forbidden();
  await assertWorkflowAdmin(ctx, tx, node.workflow_job_template_id);
}

export function nodeLabels(): Relation {
  const link = joinTable('label', 'workflow_job_template_node_labels', 'node_id', 'label_id');
  return {
    ...link,
    async authorize(ctx, tx, nodeId, labelId, detach) {
      await assertMayChange(ctx, tx, nodeId);
      if (detach) return;
      const [label] = await tx.query<Pick<LabelRow, 'organization_id'>>('SELECT organization_id FROM labels WHERE id = $1', [labelId]);
      if (label && !(await hasObjectRole(ctx, tx, 'organization', label.organization_id, 'read_role'))) throw forbidden();
    },
    // POST {name, organization}: that organization's label of that name, created if missing (AWX's LabelSubListCreateAttachDetachView).
    async create(tx: Queryable, ctx: RequestContext, parent: ResourceRow, body: unknown) {
      await assertMayChange(ctx, tx, parent.id);
      const { name, organization } = (body ?? {}) as Record<string, unknown>;
      if (typeof name !== 'string' || !name.trim()) throw ValidationError.field('name', 'This field is required.');
      if (typeof organization !== 'number') throw ValidationError.field('organization', 'This field is required.');
      if (!(await hasObjectRole(ctx, tx, 'organization', organization, 'read_role'))) throw forbidden();
      const [existing] = await tx.query<LabelRow>('SELECT * FROM labels WHERE organization_id = $1 AND name = $2', [organization, name]);
      const label = existing ?? (await createObject<LabelRow>(tx, ctx, ctx.service.resources.get('label'), { name, organization }));
      if (await link.attach!(tx, parent.id, label.id, ctx)) {
        await recordActivity(tx, ctx, { operation: 'associate', object1: 'workflow_job_template_node', object1Id: parent.id, object2: 'label', object2Id: label.id, association: 'labels', changes: {} });
      }
      return existing ? null : label;
    },
  };
}

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
