/** GET, POST /job_templates/{id}/launch/. */
import { actionOptions } from '../../api/options.ts';
import { LAUNCH_FIELDS } from './launch-options.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { serializeRow } from '../../api/serialize.ts';
import { describeLaunch } from '../../resources/job-templates/launch-description.ts';
import { launchOrRefuse } from '../../runs/launch.ts';
import { objectPermission } from '../../api/permissions.ts';
import { jobs } from './job.resource.ts';
import { jobTemplateLauncher } from './launch.ts';
import { sliceCount, slicedJobLauncher } from './slicing.ts';
import { workflowJobs } from '../workflow-job/workflow-job.resource.ts';
import { launchSchemas } from './job-schemas.ts';
import { AnyObject } from '../../api/action-schemas.ts';
import { validBody } from '../../api/route-schemas.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import type { RunRouteModule } from '../../runs/run-services.ts';

export const launchRoutes: RunRouteModule = (app, services) => {
  const { db } = services;
  routeMethods<JobTemplateRow>(app, '/api/v2/job_templates/:id/launch/', objectPermission('job_template', { GET: 'execute', POST: 'execute' }), {
    GET: async (request) => describeLaunch(db, request.object),
    POST: async (request, reply) => {
      const template = request.object;
      const prompts = validBody(request, AnyObject);
      const slices = await sliceCount(db, template, prompts);
      const launched = slices > 1
        ? await launchOrRefuse(services.launches, request.ctx, slicedJobLauncher, template, { body: prompts, slices })
        : await launchOrRefuse(services.launches, request.ctx, jobTemplateLauncher, template, prompts);
      // A sliced launch answers its workflow job, under `job` as AWX does.
      const body = await serializeRow(db, request.ctx, slices > 1 ? workflowJobs : jobs, launched.run);
      return reply.code(201).send({ job: launched.run.id, ignored_fields: launched.ignored, ...body });
    },
    OPTIONS: async () => actionOptions('Job Template Launch', 'GET: what a launch needs and what it would use. POST: launches a job.', LAUNCH_FIELDS),
  }, launchSchemas);
};
