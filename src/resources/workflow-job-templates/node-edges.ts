/**
 * The edges of a workflow's graph: /workflow_job_template_nodes/{id}/success_nodes/, failure_nodes/
 * and always_nodes/ list a node's children by kind; POST {id} links a child (204), {id,
 * disassociate: true} unlinks it (204), a body without id creates a node of the same workflow as a
 * child (201). An edge may carry `condition`, a Jinja expression over the parent's outcome that
 * must hold for the child to run (see docs/workflows.md).
 */
import { recordActivity } from '../../activity/record.ts';
import { Type, type Static, type TSchema } from 'typebox';
import { LinkBody, linkOf, OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import { checkedBody } from '../../api/route-schemas.ts';
import { bodySchema, bodyWords } from '../../api/field-schemas.ts';
import type { RequestContext } from '../../api/context.ts';
import { createObject, loadRow, parseRequestBody } from '../../api/crud.ts';
import { ApiError, forbidden, notFound, ValidationError, type FieldErrors } from '../../api/errors.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { listPage, type Query } from '../../api/list.ts';
import { listOptions } from '../../api/options.ts';
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { serializeRow } from '../../api/serialize.ts';
import type { Queryable } from '../../db/database.ts';
import type { WorkflowJobTemplateNodeEdgeRow, WorkflowJobTemplateNodeRow } from '../../db/tables.ts';
import { checkExpressionSyntax } from '../../templating/sandbox.ts';
import { mayAdministerWorkflow } from './workflow-access.ts';
import { EDGE_KINDS, workflowNodes, type EdgeKind } from './workflow-node.resource.ts';

const EDGES = 'workflow_job_template_node_edges';

/** Whether `from` reaches `to` following edges (a new edge to -> from would close a cycle). */
async function reaches(tx: Queryable, from: number, to: number): Promise<boolean> {
  const rows = await tx.query(
    `WITH RECURSIVE down(id) AS (SELECT $1::int UNION SELECT e.child_id FROM ${EDGES} e JOIN down ON e.parent_id = down.id)
     SELECT 1 FROM down WHERE id = $2 LIMIT 1`,
    [from, to],
  );
  return rows.length > 0;
}

/** POST {kind}_nodes/ with an id: a link body (attach or detach), with the edge's condition. */
const EdgeBody = Type.Object({
  ...LinkBody.properties,
  condition: Type.Optional(Type.Union([Type.String(), Type.Null()], { errorMessage: 'Not a valid string.', description: 'An expression the parent\'s outcome must satisfy.' })),
}, { additionalProperties: true });

/** A body without id creates a child node of the parent's workflow: a node's create body less its workflow, with the edge's condition. */
const EdgeOrNodeBody = {
  type: 'object',
  properties: EdgeBody.properties,
  if: { required: ['id'] },
  else: bodySchema(workflowNodes, 'create', ['workflow_job_template']),
  additionalProperties: true,
} as unknown as TSchema;

/** The edge's condition, or its problem (a condition the schema refused is read as none). */
function readCondition(body: Static<typeof EdgeBody>, refused: FieldErrors): { condition: string; problem?: string } {
  const condition = refused.condition ? '' : body.condition ?? '';
  if (!condition.trim()) return { condition: '' };
  return { condition, problem: checkExpressionSyntax(condition) ?? undefined };
}

/** Links parent -> child as `kind` (AWX's checks: same workflow, no self link, one edge per pair, no cycle). */
export async function linkNodes(tx: Queryable, ctx: RequestContext, parent: WorkflowJobTemplateNodeRow, childId: number, kind: EdgeKind, condition: string): Promise<void> {
  const [child] = await tx.query<Pick<WorkflowJobTemplateNodeRow, 'id' | 'workflow_job_template_id'>>('SELECT id, workflow_job_template_id FROM workflow_job_template_nodes WHERE id = $1', [childId]);
  if (!child) throw notFound();
  if (child.workflow_job_template_id !== parent.workflow_job_template_id) throw new ApiError(400, { Error: 'Nodes of different workflows cannot be linked.' });
  if (child.id === parent.id) throw new ApiError(400, { Error: 'Cycle detected.' });
  const [existing] = await tx.query<Pick<WorkflowJobTemplateNodeEdgeRow, 'kind' | 'condition'>>('SELECT kind, condition FROM workflow_job_template_node_edges WHERE parent_id = $1 AND child_id = $2', [parent.id, child.id]);
  if (existing && existing.kind !== kind) throw new ApiError(400, { Error: 'Relationship not allowed.' });
  if (existing) {
    if (existing.condition !== condition) await tx.query(`UPDATE ${EDGES} SET condition = $3 WHERE parent_id = $1 AND child_id = $2`, [parent.id, child.id, condition]);
    return;
  }
  if (await reaches(tx, child.id, parent.id)) throw new ApiError(400, { Error: 'Cycle detected.' });
  await tx.query(`INSERT INTO ${EDGES} (parent_id, child_id, kind, condition) VALUES ($1, $2, $3, $4)`, [parent.id, child.id, kind, condition]);
  await recordActivity(tx, ctx, {
    operation: 'associate', object1: 'workflow_job_template_node', object1Id: parent.id, object2: 'workflow_job_template_node', object2Id: child.id,
    association: `${kind}_nodes`, changes: condition ? { condition: ['', condition] } : {},
  });
}

async function unlinkNodes(tx: Queryable, ctx: RequestContext, parent: WorkflowJobTemplateNodeRow, childId: number, kind: EdgeKind): Promise<void> {
  const removed = await tx.query(`DELETE FROM ${EDGES} WHERE parent_id = $1 AND child_id = $2 AND kind = $3 RETURNING 1`, [parent.id, childId, kind]);
  if (!removed.length) return;
  await recordActivity(tx, ctx, {
    operation: 'disassociate', object1: 'workflow_job_template_node', object1Id: parent.id, object2: 'workflow_job_template_node', object2Id: childId,
    association: `${kind}_nodes`, changes: {},
  });
}

export const nodeEdgeRoutes: RouteModule = (app, services) => {
  const { db } = services;
  for (const kind of EDGE_KINDS) {
    const scope = (parentId: number) => (alias: string, params: { add(v: unknown): string }) =>
      `${alias}.id IN (SELECT child_id FROM ${EDGES} WHERE parent_id = ${params.add(parentId)} AND kind = '${kind}')`;
    routeMethods<WorkflowJobTemplateNodeRow>(app, `/api/v2/workflow_job_template_nodes/:id/${kind}_nodes/`, objectPermission('workflow_job_template_node', { POST: 'edit' }), {
      GET: async (request) => listPage(db, request.ctx, workflowNodes, request.url.split('?')[0], request.query as Query, scope(request.object.id)),
      OPTIONS: async (request) => listOptions(services.resources, workflowNodes, await mayAdministerWorkflow(request.ctx, db, request.object.workflow_job_template_id)),
      POST: async (request, reply) => {
        const parent = request.object;
        if (!(await mayAdministerWorkflow(request.ctx, db, parent.workflow_job_template_id))) throw forbidden();
        const { body, refused } = checkedBody(request) as { body: Static<typeof EdgeBody>; refused: FieldErrors };
        const link = linkOf(body);
        if (link) {
          if (Object.keys(refused).length) throw new ValidationError(refused);
          const { condition, problem } = link.disassociate ? { condition: '' } : readCondition(body, refused);
          if (problem) throw ValidationError.field('condition', problem);
          await db.transaction(async (tx) => {
            const locked = await loadRow<WorkflowJobTemplateNodeRow>(tx, workflowNodes, parent.id, true);
            if (link.disassociate) await unlinkNodes(tx, request.ctx, locked, link.id, kind);
            else await linkNodes(tx, request.ctx, locked, link.id, kind, condition);
          });
          return reply.code(204).send();
        }
        const { condition: _condition, ...fields } = body;
        const { condition, problem } = readCondition(body, refused);
        const fixed = { workflow_job_template: parent.workflow_job_template_id };
        const problems = problem ? { ...refused, condition: [problem] } : refused;
        const values = await parseRequestBody(workflowNodes, { ...fields, ...fixed }, 'create', null, (v) => workflowNodes.access.canCreate(request.ctx, db, v), problems);
        if (!(await workflowNodes.access.canCreate(request.ctx, db, values))) throw forbidden();
        const created = await db.transaction(async (tx) => {
          const row = await createObject<WorkflowJobTemplateNodeRow>(tx, request.ctx, workflowNodes, values);
          await linkNodes(tx, request.ctx, await loadRow<WorkflowJobTemplateNodeRow>(tx, workflowNodes, parent.id, true), row.id, kind, condition);
          return row;
        });
        return reply.code(201).send(await serializeRow(db, request.ctx, workflowNodes, created));
      },
    }, { GET: { summary: `List the ${kind} children of the node` }, POST: { summary: `Link, unlink or create a ${kind} child`, body: EdgeOrNodeBody, checkBody: true, fieldWords: bodyWords(workflowNodes) }, OPTIONS: OPTIONS_RESPONSE });
  }
};
