/**
 * What members do with a catalog item (docs/service-catalog.md): GET launch_data/ (the surveys to
 * answer) and POST submit/ (a request: launched at once, or waiting for an approver).
 */
import { actionOptions } from '../../api/options.ts';
import { boolean, json, text } from '../../api/fields.ts';
import { allows } from '../../api/route-objects.ts';
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { validBody } from '../../api/route-schemas.ts';
import { serializeRow } from '../../api/serialize.ts';
import { actorId } from '../../api/context.ts';
import type { Queryable } from '../../db/database.ts';
import type { ServiceCatalogItemRow, ServiceRequestRow } from '../../db/tables.ts';
import type { RunRouteModule } from '../../runs/run-services.ts';
import { activeSurvey } from '../job-templates/launch-description.ts';
import { maskSurveyPasswords } from '../job-templates/survey-spec.ts';
import { nodeSurveys } from '../workflow-job-templates/node-surveys.ts';
import { checkAnswers } from './catalog-answers.ts';
import { launchDataSchemas, SubmitBody, submitSchemas } from './catalog-schemas.ts';
import { serviceCatalogItems } from './catalog-item.resource.ts';
import { itemTemplate, launchRequest } from './request-launch.ts';
import { notifyRequest } from './request-notifications.ts';
import { recordRequest } from './request-records.ts';
import { serviceRequests } from './service-request.resource.ts';

/** The surveys a request of the item answers: the template's, and for a workflow each node's template's. */
async function launchData(db: Queryable, item: ServiceCatalogItemRow): Promise<Record<string, unknown>> {
  const template = await itemTemplate(db, item);
  const survey = template.row ? activeSurvey(template.row) : null;
  const nodes = template.workflow && template.row ? [...(await nodeSurveys(db, item.workflow_job_template_id!)).values()] : [];
  return {
    catalog_item: item.id,
    is_workflow: template.workflow,
    survey_enabled: survey !== null,
    survey_spec: survey ? maskSurveyPasswords(survey) : null,
    // A request gives only answers to the survey, whatever the template lets a launch choose.
    ask_variables_on_launch: false,
    node_surveys: nodes.map((n) => ({ node_id: n.nodeId, identifier: n.identifier, survey_spec: maskSurveyPasswords(n.survey) })),
  };
}

export const catalogItemRoutes: RunRouteModule = (app, services) => {
  const { db } = services;
  const base = serviceCatalogItems.listPath;

  routeMethods<ServiceCatalogItemRow>(app, `${base}:id/launch_data/`, objectPermission('service_catalog_item'), {
    GET: async (request) => launchData(db, request.object),
    OPTIONS: async () => actionOptions('Service Catalog Item Launch Data', 'The surveys a request of the item answers.', { GET: {}, POST: {} }),
  }, launchDataSchemas);

  routeMethods<ServiceCatalogItemRow>(app, `${base}:id/submit/`, objectPermission('service_catalog_item', { POST: 'submit' }), {
    GET: async (request) => ({ can_submit: await allows(serviceCatalogItems, 'submit', request.ctx, db, request.object).catch(() => false) }),
    POST: async (request, reply) => {
      const body = validBody(request, SubmitBody);
      const { ctx } = request;
      const made = await db.transaction(async (tx) => {
        const [item] = await tx.query<ServiceCatalogItemRow>('SELECT * FROM service_catalog_items WHERE id = $1 FOR SHARE', [request.object.id]);
        const template = await itemTemplate(tx, item);
        const answers = await checkAnswers(tx, template.row!, template.workflow, body);
        const [stored] = await tx.query<ServiceRequestRow>(
          `INSERT INTO service_requests (catalog_item_id, organization_id, requester_id, status, extra_vars, node_survey_data, justification, created_by_id, modified_by_id)
           VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $3, $3) RETURNING *`,
          [item.id, item.organization_id, actorId(ctx), item.requires_approval ? 'pending_approval' : 'approved',
            JSON.stringify(answers.extraVars), JSON.stringify(answers.nodeSurveyData), body.justification ?? ''],
        );
        await notifyRequest(tx, stored, 'requested');
        const row = item.requires_approval ? stored : await launchRequest(tx, services, stored, item, ctx.clientIp);
        await recordRequest(tx, ctx, request, 'submitted', row, item);
        return row;
      });
      return reply.code(201).send(await serializeRow(db, ctx, serviceRequests, made));
    },
    OPTIONS: async () => actionOptions('Service Catalog Item Submit', 'GET: whether you may request the item. POST {extra_vars, node_survey_data, justification}: requests it.', {
      GET: { can_submit: boolean({ readOnly: true }) },
      POST: {
        extra_vars: json({ helpText: 'Answers to the survey of the template, by variable.' }),
        node_survey_data: json({ helpText: "A workflow's answers to its nodes' surveys, by node id or identifier." }),
        justification: text({ maxLength: 4096, helpText: 'Why the request is made.' }),
      },
    }),
  }, submitSchemas(serviceRequests));
};
