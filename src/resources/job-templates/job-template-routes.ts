import { HIDDEN, recordActivity } from '../../activity/record.ts';
import { ApiError } from '../../api/errors.ts';
import { copyRouteSchemas, CopyBody } from '../../api/action-schemas.ts';
import { validBody } from '../../api/route-schemas.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { loadRow } from '../../api/crud.ts';
import { copyOptions, surveySpecOptions } from '../../api/options.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { serializeRow } from '../../api/serialize.ts';
import { objectPermission } from '../../api/permissions.ts';
import { jobTemplates } from './job-template.resource.ts';
import { surveySpecSchemas } from './job-template-schemas.ts';
import { encryptSurveyPasswords, maskSurveyPasswords, validateSurveySpec, type SurveySpec } from './survey-spec.ts';
import { copyJobTemplate } from './template-copy.ts';
import { mayCopy } from './job-template-actions.ts';
import { registerInstanceGroupRoutes } from './template-instance-groups.ts';
import type { JobTemplateRow } from '../../db/tables.ts';

const variables = (spec: SurveySpec | null | undefined) => (spec?.spec ?? []).map((q) => q.variable);

export const jobTemplateRoutes: RouteModule = (app, services) => {
  const { db } = services;
  const base = '/api/v2/job_templates/:id/';

  routeMethods<JobTemplateRow>(app, `${base}survey_spec/`, objectPermission('job_template', { POST: 'administer', DELETE: 'administer' }), {
    GET: async (request) => maskSurveyPasswords((request.object.survey_spec ?? {}) as SurveySpec),
    POST: async (request, reply) => {
      const template = request.object;
      const problems = validateSurveySpec(request.body);
      if (problems) throw new ApiError(400, { error: problems.error[0] });
      await db.transaction(async (tx) => {
        const current = await loadRow<JobTemplateRow>(tx, jobTemplates, template.id, true);
        const previous = current.survey_spec as SurveySpec | null;
        const stored = encryptSurveyPasswords(request.body as SurveySpec, previous);
        await tx.query('UPDATE job_templates SET survey_spec = $2::jsonb, modified = now() WHERE id = $1', [template.id, JSON.stringify(stored)]);
        await recordActivity(tx, request.ctx, {
          operation: 'update', object1: 'job_template', object1Id: template.id,
          changes: { survey_spec: [variables(previous), variables(stored)], survey_passwords: HIDDEN },
        });
      });
      return reply.code(200).send();
    },
    DELETE: async (request, reply) => {
      const template = request.object;
      await db.transaction(async (tx) => {
        await tx.query(`UPDATE job_templates SET survey_spec = '{}'::jsonb, modified = now() WHERE id = $1`, [template.id]);
        await recordActivity(tx, request.ctx, { operation: 'update', object1: 'job_template', object1Id: template.id, changes: { survey_spec: [variables(template.survey_spec as SurveySpec | null), []] } });
      });
      return reply.code(200).send();
    },
    OPTIONS: async () => surveySpecOptions('Job Template Survey Spec', 'GET: the survey. POST: replaces it (AWX validation). DELETE: removes it.'),
  }, surveySpecSchemas);

  routeMethods<JobTemplateRow>(app, `${base}copy/`, objectPermission('job_template', { POST: 'copy' }), {
    GET: async (request) => {
      const can = await mayCopy(request.ctx, db, request.object);
      return { can_copy: can, can_copy_without_user_input: can, templates_unable_to_copy: [], credentials_unable_to_copy: [], inventories_unable_to_copy: [] };
    },
    POST: async (request, reply) => {
      const template = request.object;
      const { name } = validBody(request, CopyBody);
      const copy = await db.transaction(async (tx) => copyJobTemplate(tx, request.ctx, await loadRow<JobTemplateRow>(tx, jobTemplates, template.id), name));
      return reply.code(201).send(await serializeRow(db, request.ctx, jobTemplates, copy));
    },
    OPTIONS: async () => copyOptions('Copy Job Template', 'GET: whether the template can be copied. POST {name}: copies it.'),
  }, copyRouteSchemas('job template'));

  registerInstanceGroupRoutes(app, services);
};
