import { randomUUID } from 'node:crypto';
import { boolean, ref, text } from '../../api/fields.ts';
import type { RequestContext } from '../../api/context.ts';
import { ValidationError } from '../../api/errors.ts';
import { defineResource, type SerializedObject, type Values } from '../../api/resource.ts';
import { joinTable } from '../../api/relations.ts';
import type { Queryable } from '../../db/database.ts';
import type { UnifiedJobTemplateRow, WorkflowJobTemplateNodeRow } from '../../db/tables.ts';
import { parseVariables, variablesProblem } from '../../inventory/variables.ts';
import { unifiedJobTypeOf } from '../../runs/run-services.ts';
import { assertCanUseCredential } from '../credentials/credential-use.ts';
import { assertLaunchConfigSlotFree } from '../credentials/one-per-type.ts';
import { RUN_CREDENTIAL_KINDS } from '../job-templates/template-relations.ts';
import { nodeAccess } from './node-access.ts';
import { checkNodePrompts } from './node-prompts.ts';
import { nodePromptFields } from './node-prompt-fields.ts';
import { assertWorkflowAdmin } from './workflow-access.ts';
import { nodeInstanceGroups, nodeLabels } from './node-relations.ts';

/** What a node's summary reads of each node (workflow template nodes and workflow job nodes alike). */
type NodeRow = Pick<WorkflowJobTemplateNodeRow, 'id' | 'unified_job_template_id'>;

/** A template a node runs, as its summary shows it (unified_job_templates, whose view columns are never null here). */
type NodeTemplate = { [K in 'id' | 'name' | 'description' | 'kind']: NonNullable<UnifiedJobTemplateRow[K]> };

export const EDGE_KINDS = ['success', 'failure', 'always'] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

export { nodePromptFields };

/** Each node's summary of its template and its edges, for a page of nodes of `edgeTable`. */
export async function loadNodeExtras(db: Queryable, rows: readonly NodeRow[], edgeTable: string, ctx: RequestContext) {
  const ids = rows.map((r) => r.id);
  const [templates, edges] = await Promise.all([
    db.query<NodeTemplate>(`SELECT id, name, description, kind FROM unified_job_templates WHERE id = ANY($1::integer[])`, [rows.map((r) => r.unified_job_template_id).filter(Boolean)]),
    db.query<{ parent_id: number; child_id: number; kind: EdgeKind; condition: string }>(
      `SELECT parent_id, child_id, kind, condition FROM ${edgeTable} WHERE parent_id = ANY($1::integer[]) ORDER BY child_id`, [ids]),
  ]);
  // Looked up by the nodes' column, which may be null (no such key: no template).
  const typed = templates.map((t) => ({ ...t, unified_job_type: unifiedJobTypeOf(ctx.service, t.kind) }));
  return { templates: new Map<number | null, NodeTemplate & { unified_job_type: string | undefined }>(typed.map((t) => [t.id, t])), edges };
}

/** The fields and links every node shows: its edges by kind, their conditions, its template's summary. */
export function decorateNode(row: NodeRow, out: SerializedObject, extras: Awaited<ReturnType<typeof loadNodeExtras>> | undefined, plural: string): void {
  const mine = extras?.edges.filter((e) => e.parent_id === row.id) ?? [];
  const conditions: Record<string, Record<string, string>> = {};
  for (const kind of EDGE_KINDS) {
    out[`${kind}_nodes`] = mine.filter((e) => e.kind === kind).map((e) => e.child_id);
    for (const e of mine.filter((x) => x.kind === kind && x.condition)) (conditions[kind] ??= {})[String(e.child_id)] = e.condition;
  }
  out.edge_conditions = conditions;
  const base = `/api/v2/${plural}/${row.id}/`;
  out.related = {
    ...(out.related as object),
    success_nodes: `${base}success_nodes/`,
    failure_nodes: `${base}failure_nodes/`,
    always_nodes: `${base}always_nodes/`,
    credentials: `${base}credentials/`,
    labels: `${base}labels/`,
    instance_groups: `${base}instance_groups/`,
  };
  const template = extras?.templates.get(row.unified_job_template_id);
  if (template) {
    out.summary_fields.unified_job_template = { id: template.id, name: template.name, description: template.description, unified_job_type: template.unified_job_type };
    out.related.unified_job_template = `/api/v2/${template.kind}s/${template.id}/`;
  } else out.unified_job_template = null;
}

/** Node values as stored: a uuid identifier unless given, extra_data a mapping (JSON or YAML text accepted). */
async function checkNode(tx: Queryable, ctx: RequestContext, values: Values, existing: WorkflowJobTemplateNodeRow | null): Promise<void> {
  if (!existing && !values.identifier) values.identifier = randomUUID();
  if ('extra_data' in values) {
    let data = values.extra_data ?? {};
    if (typeof data === 'string') {
      const problem = variablesProblem(data);
      if (problem) throw ValidationError.field('extra_data', problem);
      data = parseVariables(data);
    }
    if (typeof data !== 'object' || Array.isArray(data)) throw ValidationError.field('extra_data', 'Must be a mapping of variables.');
    values.extra_data = data;
  }
  const workflowId = (values.workflow_job_template ?? existing?.workflow_job_template_id) as number;
  if (values.unified_job_template !== undefined && values.unified_job_template === workflowId) {
    throw ValidationError.field('unified_job_template', 'A workflow cannot run itself.');
  }
  await checkNodePrompts(tx, ctx, values, existing);
}

export const workflowNodes = defineResource<WorkflowJobTemplateNodeRow>({
  name: 'workflow_job_template_node',
  table: 'workflow_job_template_nodes',
  label: 'Workflow Job Template Node List',
  description: 'One step of a workflow: a template and the values it is launched with.',
  fields: {
    workflow_job_template: ref('workflow_job_template', { required: true, writeOnce: true }),
    unified_job_template: ref('unified_job_template'),
    identifier: text({ maxLength: 512, helpText: 'An identifier for this node that is unique within its workflow. It is copied to workflow job nodes corresponding to this node.' }),
    all_parents_must_converge: boolean({ helpText: 'If enabled then the node will only run if all of the parent nodes have met the criteria to reach this node' }),
    ...nodePromptFields(),
  },
  search: ['identifier'],
  summaryColumns: ['id', 'identifier'],
  unique: [['workflow_job_template', 'identifier']],
  related: {
    credentials: {
      ...joinTable('credential', 'workflow_job_template_node_credentials', 'node_id', 'credential_id'),
      async authorize(ctx, tx, nodeId, credentialId, detach) {
        const [node] = await tx.query<Pick<WorkflowJobTemplateNodeRow, 'workflow_job_template_id'>>('SELECT workflow_job_template_id FROM workflow_job_template_nodes WHERE id = $1', [nodeId]);
        await assertWorkflowAdmin(ctx, tx, node.workflow_job_template_id);
        if (detach) return;
        await assertCanUseCredential(ctx, tx, credentialId, 'credentials', RUN_CREDENTIAL_KINDS);
        await assertLaunchConfigSlotFree(tx, { table: 'workflow_job_template_node_credentials', column: 'node_id' }, nodeId, credentialId);
      },
    },
    labels: nodeLabels(),
    instance_groups: nodeInstanceGroups(),
  },
  access: nodeAccess,
  hooks: { beforeWrite: checkNode },
  prepare: (db, rows, ctx) => loadNodeExtras(db, rows, 'workflow_job_template_node_edges', ctx),
  decorate: (row, out, prepared) => {
    decorateNode(row, out, prepared as Awaited<ReturnType<typeof loadNodeExtras>>, 'workflow_job_template_nodes');
    out.related.create_approval_template = `/api/v2/workflow_job_template_nodes/${row.id}/create_approval_template/`;
  },
});
