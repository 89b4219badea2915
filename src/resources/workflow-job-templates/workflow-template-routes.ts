/** What a workflow job template adds to its conventional endpoints: survey_spec/, copy/, and its nodes' create_approval_template/. */
import { HIDDEN, recordActivity } from '../../activity/record.ts';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import { registerCopyRoute } from '../../api/copy-route.ts';
import { createObject, loadRow, parseRequestBody } from '../../api/crud.ts';
import { checkedBodySchema, objectSchema } from '../../api/field-schemas.ts';
import { checkedBody } from '../../api/route-schemas.ts';
import { ApiError, forbidden } from '../../api/errors.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { actionOptions, surveySpecOptions } from '../../api/options.ts';
import { integer, text } from '../../api/fields.ts';
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { serializeRow } from '../../api/serialize.ts';
import { surveySpecSchemas } from '../job-templates/job-template-schemas.ts';
import { encryptSurveyPasswords, maskSurveyPasswords, validateSurveySpec, type SurveySpec } from '../job-templates/survey-spec.ts';
import { workflowApprovalTemplates } from './approval-template.resource.ts';
import { mayAdministerWorkflow } from './workflow-access.ts';
import { copyWorkflowGraph } from './workflow-copy.ts';
import { workflowJobTemplates } from './workflow-job-template.resource.ts';
import { workflowNodes } from './workflow-node.resource.ts';
import type { Values } from '../../api/resource.ts';
import type { WorkflowApprovalTemplateRow, WorkflowJobTemplateNodeRow, WorkflowJobTemplateRow } from '../../db/tables.ts';

const variables = (spec: SurveySpec | null | undefined) => (spec?.spec ?? []).map((q) => q.variable);

export const workflowTemplateRoutes: RouteModule = (app, services) => {
  const { db } = services;
  const base = '/api/v2/workflow_job_templates/:id/';

  routeMethods<WorkflowJobTemplateRow>(app, `${base}survey_spec/`, objectPermission('workflow_job_template', { POST: 'administer', DELETE: 'administer' }), {
    GET: async (request) => maskSurveyPasswords((request.object.survey_spec ?? {}) as SurveySpec),
    POST: async (request, reply) => {
      const problems = validateSurveySpec(request.body);
      if (problems) throw new ApiError(400, { error: problems.error[0] });
      await db.transaction(async (tx) => {
        const current = await loadRow<WorkflowJobTemplateRow>(tx, workflowJobTemplates, request.object.id, true);
        const previous = current.survey_spec as SurveySpec | null;
        const stored = encryptSurveyPasswords(request.body as SurveySpec, previous);
        await tx.query('UPDATE workflow_job_templates SET survey_spec = $2::jsonb, modified = now() WHERE id = $1', [current.id, JSON.stringify(stored)]);
        await recordActivity(tx, request.ctx, {
          operation: 'update', object1: 'workflow_job_template', object1Id: current.id,
          changes: { survey_spec: [variables(previous), variables(stored)], survey_passwords: HIDDEN },
        });
      });
      return reply.code(200).send();
    },
    DELETE: async (request, reply) => {
      await db.transaction(async (tx) => {
        await tx.query(`UPDATE workflow_job_templates SET survey_spec = '{}'::jsonb, modified = now() WHERE id = $1`, [request.object.id]);
        await recordActivity(tx, request.ctx, { operation: 'update', object1: 'workflow_job_template', object1Id: request.object.id, changes: { survey_spec: [variables(request.object.survey_spec as SurveySpec | null), []] } });
      });
      return reply.code(200).send();
    },
    OPTIONS: async () => surveySpecOptions('Workflow Job Template Survey Spec', 'GET: the survey. POST: replaces it. DELETE: removes it.'),
  }, surveySpecSchemas);

  registerCopyRoute(app, services, workflowJobTemplates, { after: copyWorkflowGraph });

  routeMethods<WorkflowJobTemplateNodeRow>(app, '/api/v2/workflow_job_template_nodes/:id/create_approval_template/', objectPermission('workflow_job_template_node', { POST: 'edit' }), {
    GET: async () => ({ name: '', description: '', timeout: 0 }),
    POST: async (request, reply) => {
      const node = request.object;
      if (!(await mayAdministerWorkflow(request.ctx, db, node.workflow_job_template_id))) throw forbidden();
      const { body, refused } = checkedBody(request);
      // The workflow's admin may make its nodes approval nodes: no further permission to check.
      const values = await parseRequestBody(workflowApprovalTemplates, body, 'create', null, () => true, refused);
      const approval = await db.transaction(async (tx) => {
        const locked = await loadRow<WorkflowJobTemplateNodeRow>(tx, workflowNodes, node.id, true);
        const previous = locked.unified_job_template_id;
        // An approval node keeps one approval template: it is changed in place when there is one.
        const [current] = previous ? await tx.query<WorkflowApprovalTemplateRow>('SELECT * FROM workflow_approval_templates WHERE id = $1', [previous]) : [];
        const row = current
          ? (await tx.query<WorkflowApprovalTemplateRow>('UPDATE workflow_approval_templates SET name = $2, description = $3, timeout = $4, modified = now() WHERE id = $1 RETURNING *',
            [current.id, values.name, values.description ?? '', values.timeout ?? 0]))[0]
          : await createApprovalTemplate(tx, request.ctx, values);
        await tx.query('UPDATE workflow_job_template_nodes SET unified_job_template_id = $2, modified = now() WHERE id = $1', [locked.id, row.id]);
        return row;
      });
      return reply.code(201).send(await serializeRow(db, request.ctx, workflowApprovalTemplates, approval));
    },
    OPTIONS: async () => actionOptions('Workflow Job Template Node Create Approval', 'POST {name, description, timeout}: makes the node an approval node.', {
      GET: {},
      POST: { name: text({ required: true, maxLength: 512 }), description: text({ default: '' }), timeout: integer({ default: 0, min: 0 }) },
    }),
  }, {
    POST: { summary: 'Make the node an approval node', ...checkedBodySchema(workflowApprovalTemplates, 'create'), response: { 201: objectSchema(workflowApprovalTemplates) } },
    OPTIONS: OPTIONS_RESPONSE,
  });
};

/** The framework refuses creating approval templates through their list; this one is made for a node (its workflow's admin was checked). */
function createApprovalTemplate(tx: Parameters<typeof createObject>[0], ctx: Parameters<typeof createObject>[1], values: Values) {
  const open = { ...workflowApprovalTemplates, access: { ...workflowApprovalTemplates.access, canCreate: () => true } };
  return createObject<WorkflowApprovalTemplateRow>(tx, ctx, open, values);
}
