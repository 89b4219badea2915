/** GET, POST /jobs/{id}/relaunch/. */
import { actionOptions } from '../../api/options.ts';
import { RELAUNCH_FIELDS } from './launch-options.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { serializeRow } from '../../api/serialize.ts';
import { launchOrRefuse } from '../../runs/launch.ts';
import { describeRelaunch, relaunchLauncher } from './relaunch.ts';
import { RelaunchBody, relaunchSchemas } from './job-schemas.ts';
import { validBody } from '../../api/route-schemas.ts';
import { objectPermission } from '../../api/permissions.ts';
import type { JobRow } from '../../db/tables.ts';
import type { RunRouteModule } from '../../runs/run-services.ts';

export const relaunchRoutes: RunRouteModule = (app, services) => {
  const { db } = services;
  routeMethods(app, '/api/v2/jobs/:id/relaunch/', objectPermission('job', { POST: 'relaunch' }), {
    GET: async (request) => describeRelaunch(db, request.object as JobRow),
    POST: async (request, reply) => {
      const job = request.object as JobRow;
      const created = (await launchOrRefuse(services.launches, request.ctx, relaunchLauncher, null, { job, body: validBody(request, RelaunchBody) })).run;
      const body = await serializeRow(db, request.ctx, services.resources.get('job'), created);
      return reply.code(201).header('Location', `/api/v2/jobs/${created.id}/`).send({ job: created.id, ...body });
    },
    OPTIONS: async () =>
      actionOptions('Job Relaunch', 'GET: the passwords a relaunch needs and the host counts. POST {hosts: all|failed, credential_passwords}: relaunches the job.', RELAUNCH_FIELDS),
  }, relaunchSchemas);
};
