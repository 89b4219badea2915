/** GET /job_host_summaries/{id}/: one host's results of a job, visible to whoever sees the job. */
import type { RouteModule } from '../../api/extra-routes.ts';
import { detailOptions } from '../../api/options.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { objectPermission } from '../../api/permissions.ts';
import { serializeRow } from '../../api/serialize.ts';
import { jobHostSummaries } from './job-host-summary.resource.ts';

export const hostSummaryRoutes: RouteModule = (app, services) => {
  const { db } = services;
  routeMethods(app, '/api/v2/job_host_summaries/:id/', objectPermission('job_host_summary'), {
    GET: async (request) => serializeRow(db, request.ctx, jobHostSummaries, request.object),
    OPTIONS: async () => detailOptions(services.resources, jobHostSummaries, false),
  });
};
