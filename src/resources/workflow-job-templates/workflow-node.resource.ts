import { randomUUID } from 'node:crypto';
import { boolean, ref, text } from '../../api/fields.ts';
import type { RequestContext } from '../../api/context.ts';
import { ValidationError } from '../../api/errors.ts';
import { defineResource, type Values } from '../../api/resource.ts';
import { joinTable } from '../../api/relations.ts';
import type { Queryable } from '../../db/database.ts';
import { parseVariables, variablesProblem } from '../../inventory/variables.ts';
import { unifiedJobTypeOf } from '../../runs/kinds-in-use.ts';
import { assertCanUseCredential } from '../credentials/credential-use.ts';
import { RUN_CREDENTIAL_KINDS } from '../job-templates/template-relations.ts';
import { nodeAccess } from './node-access.ts';
import { checkNodePrompts } from './node-prompts.ts';
import { nodePromptFields } from './node-prompt-fields.ts';
import { assertWorkflowAdmin } from './workflow-access.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

export const EDGE_KINDS = ['success', 'failure', 'always'] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

export { nodePromptFields };

/** Each node's summary of its template and its edges, for a page of nodes of `edgeTable`. */
export async function loadNodeExtras(db: Queryable, rows: readonly AnyRow[], edgeTable: string) {
  const ids = rows.map((r) => r.id);
  const [templates, edges] = await Promise.all([
    db.query<AnyRow>(`SELECT id, name, description, kind FROM unified_job_templates WHERE id = ANY($1::integer[])`, [rows.map((r) => r.unified_job_template_id).filter(Boolean)]),
    db.query<{ parent_id: number; child_id: number; kind: EdgeKind; condition: string }>(
      `SELECT parent_id, child_id, kind, condition FROM ${edgeTable} WHERE parent_id = ANY($1::integer[]) ORDER BY child_id`, [ids]),
  ]);
  return { templates: new Map(templates.map((t) => [t.id, t])), edges };
}

/** The fields and links every node shows: its edges by kind, their conditions, its template's summary. */
export function decorateNode(row: AnyRow, out: AnyRow, extras: Awaited<ReturnType<typeof loadNodeExtras>> | undefined, plural: string): void {
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
  };
  const template = extras?.templates.get(row.unified_job_template_id);
  if (template) {
    (out.summary_fields as AnyRow).unified_job_template = { id: template.id, name: template.name, description: template.description, unified_job_type: unifiedJobTypeOf(template.kind) };
    (out.related as AnyRow).unified_job_template = `/api/v2/${template.kind}s/${template.id}/`;
  } else out.unified_job_template = null;
}

/** Node values as stored: a uuid identifier unless given, extra_data a mapping (JSON or YAML text accepted). */
async function checkNode(tx: Queryable, ctx: RequestContext, values: Values, existing: AnyRow | null): Promise<void> {
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

export const workflowNodes = defineResource({
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
        const [node] = await tx.query<AnyRow>('SELECT workflow_job_template_id FROM workflow_job_template_nodes WHERE id = $1', [nodeId]);
        await assertWorkflowAdmin(ctx, tx, node.workflow_job_template_id);
        if (!detach) await assertCanUseCredential(ctx, tx, credentialId, 'credentials', RUN_CREDENTIAL_KINDS);
      },
    },
  },
  access: nodeAccess,
  hooks: { beforeWrite: checkNode },
  prepare: (db, rows) => loadNodeExtras(db, rows, 'workflow_job_template_node_edges'),
  decorate: (row, out, prepared) => {
    decorateNode(row, out, prepared as Awaited<ReturnType<typeof loadNodeExtras>>, 'workflow_job_template_nodes');
    (out.related as AnyRow).create_approval_template = `/api/v2/workflow_job_template_nodes/${row.id}/create_approval_template/`;
  },
});
