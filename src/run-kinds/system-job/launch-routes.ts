/** GET, POST /system_job_templates/{id}/launch/ (AWX's SystemJobTemplateLaunch). */
import { actionOptions } from '../../api/options.ts';
import { json } from '../../api/fields.ts';

/** AWX's SystemJobLaunchSerializer: the days to keep, in extra_vars. */
const SYSTEM_LAUNCH_FIELDS = { GET: {}, POST: { extra_vars: json({ default: {}, helpText: 'For cleanup jobs, {"days": N}: how many days of data to keep.' }) } };
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { serializeRow } from '../../api/serialize.ts';
import { launchOrRefuse } from '../../runs/launch.ts';
import { systemJobLauncher } from './launcher.ts';
import { SystemLaunchBodySchema, systemLaunchSchemas } from './launch-schemas.ts';
import { validBody } from '../../api/route-schemas.ts';
import { systemJobs } from './system-job.resource.ts';
import type { RunRouteModule } from '../../runs/run-services.ts';
import type { SystemJobTemplateRow } from '../../db/tables.ts';

export const systemJobLaunchRoutes: RunRouteModule = (app, services) => {
  routeMethods<SystemJobTemplateRow>(app, '/api/v2/system_job_templates/:id/launch/', objectPermission('system_job_template', { GET: 'execute', POST: 'execute' }), {
    // AWX answers {} here; the days a cleanup keeps are prompted in extra_vars.
    GET: async () => ({}),
    POST: async (request, reply) => {
      const launched = await launchOrRefuse(services.launches, request.ctx, systemJobLauncher, request.object, validBody(request, SystemLaunchBodySchema));
      const body = await serializeRow(services.db, request.ctx, systemJobs, launched.run);
      return reply.code(201).header('location', `/api/v2/system_jobs/${launched.run.id}/`).send({ system_job: launched.run.id, ...body });
    },
    OPTIONS: async () => actionOptions('System Job Template Launch', 'POST {extra_vars: {days: N}}: starts the maintenance job.', SYSTEM_LAUNCH_FIELDS),
  }, systemLaunchSchemas);
};
