import { seesEverything } from '../../api/access.ts';
import { boolean, ENCRYPTED, json, ref, text } from '../../api/fields.ts';
import { isEncryptedSecret } from '../../secrets/encryption.ts';
import { defineResource } from '../../api/resource.ts';
import { joinTable, orderedJoinTable, type Relation } from '../../api/relations.ts';
import type { Queryable } from '../../db/database.ts';
import type { UnifiedJobRow, WorkflowJobNodeRow } from '../../db/tables.ts';
import { decorateNode, loadNodeExtras, nodePromptFields } from '../../resources/workflow-job-templates/workflow-node.resource.ts';
import { visibleRuns } from '../../resources/unified-jobs/unified-job.resource.ts';

const readOnly = { readOnly: true } as const;
const children = (kind: string): Relation => ({
  target: 'workflow_job_node',
  from: `(SELECT parent_id, child_id FROM workflow_job_node_edges WHERE kind = '${kind}') AS ${kind}_edges`,
  parentColumn: 'parent_id',
  targetColumn: 'child_id',
  attachable: false,
});

/** What the node was given from its template node (AWX's WorkflowJobNode credentials, labels, instance_groups lists): read only. */
const given = (relation: Relation): Relation => ({ ...relation, attachable: false, attach: undefined, detach: undefined });

/** A node's run as its summary shows it. */
type NodeJob = Pick<UnifiedJobRow, 'id' | 'name' | 'status' | 'failed' | 'elapsed' | 'kind' | 'timed_out'>;

/** Each node's run as its summary shows it. */
async function loadNodeJobs(db: Queryable, rows: readonly WorkflowJobNodeRow[]) {
  const jobs = await db.query<NodeJob>(`SELECT id, name, status, failed, elapsed, kind, timed_out FROM unified_jobs WHERE id = ANY($1::int[])`, [rows.map((r) => r.job_id).filter(Boolean)]);
  return new Map(jobs.map((j) => [j.id, j]));
}

/** The nodes of workflow jobs (/workflow_job_nodes/): copied from the template's at launch, each with the run it started. */
export const workflowJobNodes = defineResource<WorkflowJobNodeRow>({
  name: 'workflow_job_node',
  table: 'workflow_job_nodes',
  label: 'Workflow Job Node List',
  description: 'One step of a workflow job and the run it started.',
  operations: { create: false, update: false, delete: false },
  fields: {
    workflow_job: ref('workflow_job', readOnly),
    unified_job_template: ref('unified_job_template', readOnly),
    job: ref('unified_job', readOnly),
    identifier: text(readOnly),
    all_parents_must_converge: boolean(readOnly),
    do_not_run: boolean({ readOnly: true, helpText: 'Indicates that a job will not be created when True. Workflow runtime semantics will mark this True if the node is in a path that will decidedly not be ran.' }),
    ancestor_artifacts: json({ readOnly: true, filterable: false }),
    condition_errors: json({ readOnly: true, filterable: false, helpText: 'Conditions of edges into this node that could not be evaluated, by parent node id.' }),
    ...Object.fromEntries(Object.entries(nodePromptFields()).map(([name, field]) => [name, { ...field, readOnly: true }])),
  },
  search: ['identifier'],
  summaryColumns: ['id', 'identifier'],
  related: {
    success_nodes: children('success'),
    failure_nodes: children('failure'),
    always_nodes: children('always'),
    credentials: given(joinTable('credential', 'workflow_job_node_credentials', 'node_id', 'credential_id')),
    labels: given(joinTable('label', 'workflow_job_node_labels', 'node_id', 'label_id')),
    instance_groups: given(orderedJoinTable('instance_group', 'workflow_job_node_instance_groups', 'node_id', 'instance_group_id')),
  },
  access: {
    visible: (ctx, alias, params) =>
      seesEverything(ctx) ? null : `${alias}.workflow_job_id IN (SELECT u.id FROM unified_jobs u WHERE u.kind = 'workflow_job' AND ${visibleRuns(ctx, 'u', params) ?? 'true'})`,
    canCreate: () => false,
    canChange: () => false,
    canDelete: () => false,
    canAttach: () => false,
  },
  prepare: async (db, rows, ctx) => ({ ...(await loadNodeExtras(db, rows, 'workflow_job_node_edges', ctx)), jobs: await loadNodeJobs(db, rows) }),
  decorate: (row, out, prepared) => {
    const extras = prepared as Awaited<ReturnType<typeof loadNodeExtras>> & { jobs: Map<number, NodeJob> };
    decorateNode(row, out, extras, 'workflow_job_nodes');
    // Answers to password questions a node keeps (a catalog request's) are shown as AWX shows secrets.
    if (out.extra_data && typeof out.extra_data === 'object') {
      out.extra_data = Object.fromEntries(Object.entries(out.extra_data).map(([name, value]) => [name, isEncryptedSecret(value) ? ENCRYPTED : value]));
    }
    const job = row.job_id === null ? undefined : extras?.jobs.get(row.job_id);
    if (job) {
      out.summary_fields.job = { id: job.id, name: job.name, status: job.status, failed: job.failed, elapsed: Number(job.elapsed), type: job.kind, ...(job.kind === 'workflow_approval' && { timed_out: job.timed_out }) };
      out.related.job = `/api/v2/${job.kind}s/${job.id}/`;
    }
    out.related.workflow_job = `/api/v2/workflow_jobs/${row.workflow_job_id}/`;
  },
});
