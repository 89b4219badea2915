/** GET, POST /workflow_job_templates/{id}/launch/ and POST /workflow_jobs/{id}/relaunch/. */
import { AnyObject, OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import { validBody } from '../../api/route-schemas.ts';
import { actionOptions, viewOptions } from '../../api/options.ts';
import { WORKFLOW_LAUNCH_FIELDS } from './launch-options.ts';
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { serializeRow } from '../../api/serialize.ts';
import { launchOrRefuse } from '../../runs/launch.ts';
import { describeWorkflowLaunch, workflowTemplateLauncher } from './launch.ts';
import { workflowRelauncher } from './relaunch.ts';
import { workflowJobs } from './workflow-job.resource.ts';
import type { RunRouteModule } from '../../runs/run-services.ts';
import type { WorkflowJobRow, WorkflowJobTemplateRow } from '../../db/tables.ts';

export const workflowLaunchRoutes: RunRouteModule = (app, services) => {
  const { db } = services;
  routeMethods<WorkflowJobTemplateRow>(app, '/api/v2/workflow_job_templates/:id/launch/', objectPermission('workflow_job_template', { GET: 'execute', POST: 'execute' }), {
    GET: async (request) => describeWorkflowLaunch(db, request.object),
    POST: async (request, reply) => {
      const launched = await launchOrRefuse(services.launches, request.ctx, workflowTemplateLauncher, request.object, validBody(request, AnyObject));
      const body = await serializeRow(db, request.ctx, workflowJobs, launched.run);
      return reply.code(201).send({ workflow_job: launched.run.id, ignored_fields: launched.ignored, ...body });
    },
    OPTIONS: async () => actionOptions('Workflow Job Template Launch', 'GET: what a launch needs. POST: launches a workflow job.', WORKFLOW_LAUNCH_FIELDS),
  }, {
    GET: { summary: 'What a launch of the workflow needs' },
    // The body must be an object; its prompts are checked by acceptPrompts, which ignores those not asked for.
    POST: { summary: 'Launch the workflow', body: AnyObject, checkBody: true },
    OPTIONS: OPTIONS_RESPONSE,
  });

  routeMethods<WorkflowJobRow>(app, '/api/v2/workflow_jobs/:id/relaunch/', objectPermission('workflow_job', { POST: 'relaunch' }), {
    GET: async () => ({}),
    POST: async (request, reply) => {
      const launched = await launchOrRefuse(services.launches, request.ctx, workflowRelauncher, request.object, request.body);
      return reply.code(201).send(await serializeRow(db, request.ctx, workflowJobs, launched.run));
    },
    OPTIONS: async () => viewOptions('Workflow Job Relaunch', 'POST: a new workflow job with the same values.'),
  }, { POST: { summary: 'Relaunch the workflow job' }, OPTIONS: OPTIONS_RESPONSE });
};
