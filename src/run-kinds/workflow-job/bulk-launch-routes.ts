/** GET, POST /api/v2/bulk/job_launch/ (AWX's BulkJobLaunchView): any signed-in user; what they may launch is checked per template. */
import { AnyObject, OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import { integer, json, text } from '../../api/fields.ts';
import { actionOptions } from '../../api/options.ts';
import { AUTHENTICATED } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { validBody } from '../../api/route-schemas.ts';
import { serializeRow } from '../../api/serialize.ts';
import type { RunRouteModule } from '../../runs/run-services.ts';
import { launchBulkJob, readBulkLaunch } from './bulk-launch.ts';
import { workflowJobs } from './workflow-job.resource.ts';

const BULK_LAUNCH_FIELDS = {
  GET: {},
  POST: {
    name: text({ default: 'Bulk Job Launch', maxLength: 512 }),
    jobs: json({ required: true, helpText: 'List of jobs to be launched, JSON. e.g. [{"unified_job_template": 7}, {"unified_job_template": 10}]' }),
    description: text(),
    extra_vars: json(),
    organization: integer({ helpText: 'Inherit permissions from this organization. If not provided, a organization the user is a member of will be selected automatically.' }),
    inventory: integer(),
    limit: text(),
    scm_branch: text({ maxLength: 1024 }),
    skip_tags: text(),
    job_tags: text(),
  },
};

export const bulkLaunchRoutes: RunRouteModule = (app, services) => {
  routeMethods(app, '/api/v2/bulk/job_launch/', AUTHENTICATED, {
    GET: async () => ({ detail: 'Specify a list of unified job templates to launch alongside their launchtime parameters' }),
    POST: async (request, reply) => {
      const launch = readBulkLaunch(validBody(request, AnyObject));
      const run = await services.db.transaction((tx) => launchBulkJob(tx, request.ctx, launch));
      return reply.code(201).send(await serializeRow(services.db, request.ctx, workflowJobs, run));
    },
    OPTIONS: async () => actionOptions('Bulk Job Launch', 'Launches many templates as the nodes of one workflow job.', BULK_LAUNCH_FIELDS),
  }, {
    GET: { summary: 'What a bulk launch takes' },
    POST: { summary: 'Launch many templates at once', body: AnyObject, checkBody: true },
    OPTIONS: OPTIONS_RESPONSE,
  });
};
