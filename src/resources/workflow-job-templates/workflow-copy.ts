/** A workflow's copy takes its whole graph: nodes (with prompts and credentials), edges, and new approval templates. */
import type { RequestContext } from '../../api/context.ts';
import { NODE_PROMPT_STORAGE } from './node-prompt-fields.ts';
import type { Queryable } from '../../db/database.ts';
import type { WorkflowApprovalTemplateRow, WorkflowJobTemplateNodeRow, WorkflowJobTemplateRow } from '../../db/tables.ts';
import { mayUseTemplate } from './node-access.ts';

const NODE_COLUMNS = ['unified_job_template_id', 'identifier', 'all_parents_must_converge', ...NODE_PROMPT_STORAGE];
const quoted = NODE_COLUMNS.map((c) => `"${c}"`).join(', ');

export async function copyWorkflowGraph(tx: Queryable, ctx: RequestContext, original: Pick<WorkflowJobTemplateRow, 'id' | 'survey_spec'>, copy: Pick<WorkflowJobTemplateRow, 'id'>): Promise<void> {
  const nodes = await tx.query<WorkflowJobTemplateNodeRow & { template_kind: string | null }>(`SELECT n.*, t.kind AS template_kind FROM workflow_job_template_nodes n
    LEFT JOIN unified_job_templates t ON t.id = n.unified_job_template_id WHERE n.workflow_job_template_id = $1 ORDER BY n.id`, [original.id]);
  const ids = new Map<number, number>();
  for (const node of nodes) {
    let templateId: number | null = node.unified_job_template_id;
    if (node.template_kind === 'workflow_approval_template') {
      const [approval] = await tx.query<Pick<WorkflowApprovalTemplateRow, 'id'>>(
        `INSERT INTO workflow_approval_templates (name, description, timeout, created_by_id, modified_by_id)
         SELECT name, description, timeout, $2, $2 FROM workflow_approval_templates WHERE id = $1 RETURNING id`, [templateId, ctx.user?.id ?? null]);
      templateId = approval.id;
    } else if (templateId !== null && !(await mayUseTemplate(ctx, tx, templateId))) templateId = null;
    const [made] = await tx.query<Pick<WorkflowJobTemplateNodeRow, 'id'>>(
      `INSERT INTO workflow_job_template_nodes (workflow_job_template_id, ${quoted}, created_by_id, modified_by_id)
       SELECT $2, ${NODE_COLUMNS.map((c) => (c === 'unified_job_template_id' ? '$3' : `"${c}"`)).join(', ')}, $4, $4 FROM workflow_job_template_nodes WHERE id = $1 RETURNING id`,
      [node.id, copy.id, templateId, ctx.user?.id ?? null],
    );
    ids.set(node.id, made.id);
    await tx.query(`INSERT INTO workflow_job_template_node_credentials (node_id, credential_id) SELECT $2, credential_id FROM workflow_job_template_node_credentials WHERE node_id = $1`, [node.id, made.id]);
    await tx.query(`INSERT INTO workflow_job_template_node_labels (node_id, label_id) SELECT $2, label_id FROM workflow_job_template_node_labels WHERE node_id = $1`, [node.id, made.id]);
    await tx.query(`INSERT INTO workflow_job_template_node_instance_groups (node_id, instance_group_id, position) SELECT $2, instance_group_id, position FROM workflow_job_template_node_instance_groups WHERE node_id = $1`, [node.id, made.id]);
  }
  const originals = [...ids.keys()];
  await tx.query(
    `INSERT INTO workflow_job_template_node_edges (parent_id, child_id, kind, condition)
     SELECT p.new, c.new, e.kind, e.condition FROM workflow_job_template_node_edges e
     JOIN unnest($1::int[], $2::int[]) AS p(old, new) ON p.old = e.parent_id
     JOIN unnest($1::int[], $2::int[]) AS c(old, new) ON c.old = e.child_id`,
    [originals, originals.map((id) => ids.get(id))],
  );
  await tx.query('INSERT INTO workflow_job_template_labels (workflow_job_template_id, label_id) SELECT $2, label_id FROM workflow_job_template_labels WHERE workflow_job_template_id = $1', [original.id, copy.id]);
  await tx.query('UPDATE workflow_job_templates SET survey_spec = $2 WHERE id = $1', [copy.id, original.survey_spec ?? {}]);
}
