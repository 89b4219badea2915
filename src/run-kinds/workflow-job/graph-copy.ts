/** At launch a workflow job takes a copy of its template's graph: nodes (prompts, credentials, labels, instance groups) and edges with their conditions. */
import { NODE_PROMPT_STORAGE } from '../../resources/workflow-job-templates/node-prompt-fields.ts';
import type { Queryable } from '../../db/database.ts';

/** Copies each node's credentials, labels and instance groups (in order) from the `from` tables to the `to` ones. */
async function copyNodeLists(tx: Queryable, from: string, to: string, olds: number[], news: number[]): Promise<void> {
  const pairs = 'JOIN unnest($1::int[], $2::int[]) AS m(old, new) ON m.old = l.node_id';
  await tx.query(`INSERT INTO ${to}_credentials (node_id, credential_id) SELECT m.new, l.credential_id FROM ${from}_credentials l ${pairs}`, [olds, news]);
  await tx.query(`INSERT INTO ${to}_labels (node_id, label_id) SELECT m.new, l.label_id FROM ${from}_labels l ${pairs}`, [olds, news]);
  await tx.query(`INSERT INTO ${to}_instance_groups (node_id, instance_group_id, position) SELECT m.new, l.instance_group_id, l.position FROM ${from}_instance_groups l ${pairs}`, [olds, news]);
}

const NODE_COLUMNS = ['unified_job_template_id', 'identifier', 'all_parents_must_converge', ...NODE_PROMPT_STORAGE].map((c) => `"${c}"`).join(', ');

export async function copyTemplateGraph(tx: Queryable, workflowJobId: number, templateId: number, creatorId: number | null): Promise<void> {
  const made = await tx.query<{ id: number; source: number }>(
    `WITH source AS (SELECT * FROM workflow_job_template_nodes WHERE workflow_job_template_id = $2 ORDER BY id),
     made AS (
       INSERT INTO workflow_job_nodes (workflow_job_id, ${NODE_COLUMNS}, created_by_id, modified_by_id)
       SELECT $1, ${NODE_COLUMNS}, $3, $3 FROM source ORDER BY id RETURNING id, identifier)
     SELECT made.id, source.id AS source FROM made JOIN source ON source.identifier = made.identifier`,
    [workflowJobId, templateId, creatorId],
  );
  if (!made.length) return;
  const [olds, news] = [made.map((m) => m.source), made.map((m) => m.id)];
  await tx.query(
    `INSERT INTO workflow_job_node_edges (parent_id, child_id, kind, condition)
     SELECT p.new, c.new, e.kind, e.condition FROM workflow_job_template_node_edges e
     JOIN unnest($1::int[], $2::int[]) AS p(old, new) ON p.old = e.parent_id
     JOIN unnest($1::int[], $2::int[]) AS c(old, new) ON c.old = e.child_id`,
    [olds, news],
  );
  await copyNodeLists(tx, 'workflow_job_template_node', 'workflow_job_node', olds, news);
}

/** A relaunch copies the graph of the workflow job it repeats (the template's may have changed since). */
export async function copyJobGraph(tx: Queryable, workflowJobId: number, fromJobId: number, creatorId: number | null): Promise<void> {
  const made = await tx.query<{ id: number; source: number }>(
    `WITH source AS (SELECT * FROM workflow_job_nodes WHERE workflow_job_id = $2 ORDER BY id),
     made AS (
       INSERT INTO workflow_job_nodes (workflow_job_id, ${NODE_COLUMNS}, job_slice_number, created_by_id, modified_by_id)
       SELECT $1, ${NODE_COLUMNS}, job_slice_number, $3, $3 FROM source ORDER BY id RETURNING id, identifier)
     SELECT made.id, source.id AS source FROM made JOIN source ON source.identifier = made.identifier`,
    [workflowJobId, fromJobId, creatorId],
  );
  if (!made.length) return;
  const [olds, news] = [made.map((m) => m.source), made.map((m) => m.id)];
  await tx.query(
    `INSERT INTO workflow_job_node_edges (parent_id, child_id, kind, condition)
     SELECT p.new, c.new, e.kind, e.condition FROM workflow_job_node_edges e
     JOIN unnest($1::int[], $2::int[]) AS p(old, new) ON p.old = e.parent_id
     JOIN unnest($1::int[], $2::int[]) AS c(old, new) ON c.old = e.child_id`,
    [olds, news],
  );
  await copyNodeLists(tx, 'workflow_job_node', 'workflow_job_node', olds, news);
}
