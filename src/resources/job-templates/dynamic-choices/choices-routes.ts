/**
 * POST /job_templates/{id}/survey_spec/dynamic_choices/ and the same of workflow job templates:
 * the choices of a survey's dynamic questions as the caller would be shown them at launch. One
 * cache serves both kinds of template.
 */
import type { FastifyInstance } from 'fastify';
import type { RouteModule } from '../../../api/extra-routes.ts';
import { json } from '../../../api/fields.ts';
import { actionOptions } from '../../../api/options.ts';
import { objectPermission } from '../../../api/permissions.ts';
import { routeMethods } from '../../../api/resource-routes.ts';
import type { Database } from '../../../db/database.ts';
import type { SurveySpec } from '../survey-spec.ts';
import { ChoiceCache } from './choice-cache.ts';
import { ChoicesBody, dynamicChoicesSchemas } from './choices-schemas.ts';
import { validBody } from '../../../api/route-schemas.ts';
import { askedVariables, resolveChoices } from './resolve.ts';

function register(app: FastifyInstance, db: Database, cache: ChoiceCache, resource: 'job_template' | 'workflow_job_template', label: string) {
  routeMethods(app, `/api/v2/${resource}s/:id/survey_spec/dynamic_choices/`, objectPermission(resource, { POST: 'execute' }), {
    GET: async (request) => ({ variables: [...askedVariables(request.object.survey_spec as SurveySpec, {}).keys()] }),
    POST: async (request) => {
      const asked = askedVariables(request.object.survey_spec as SurveySpec, validBody(request, ChoicesBody));
      return resolveChoices({
        db, ctx: request.ctx, template: request.object, cache,
        onUnexpected: (variable, err) => request.log.error({ err, variable }, 'dynamic survey choices failed'),
      }, asked);
    },
    OPTIONS: async () => actionOptions(`${label} Survey Dynamic Choices`, 'GET: the variables whose choices come from a source. POST {variables}: their choices (needs the launch permission).', {
      GET: { variables: json({ readOnly: true }) },
      POST: { variables: json({ helpText: 'Variables to resolve; every dynamic question when left out.' }) },
    }),
  }, dynamicChoicesSchemas);
}

export const dynamicChoicesRoutes: RouteModule = (app, services) => {
  const cache = new ChoiceCache();
  register(app, services.db, cache, 'job_template', 'Job Template');
  register(app, services.db, cache, 'workflow_job_template', 'Workflow Job Template');
};
