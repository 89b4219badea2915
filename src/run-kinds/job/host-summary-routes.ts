/** GET /job_host_summaries/{id}/: one host's results of a job, visible to whoever sees the job. */
import type { RouteModule } from '../../api/extra-routes.ts';
import { forbidden, notFound } from '../../api/errors.ts';
import { isVisible } from '../../api/list.ts';
import { detailOptions } from '../../api/options.ts';
import { getResource } from '../../api/resource.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { AUTHENTICATED } from '../../api/permissions.ts';
import { serializeRow } from '../../api/serialize.ts';
import { jobHostSummaries } from './job-host-summary.resource.ts';

export const hostSummaryRoutes: RouteModule = (app, services) => {
  const { db } = services;
  routeMethods(app, '/api/v2/job_host_summaries/:id/', AUTHENTICATED, {
    GET: async (request) => {
      const id = (request.params as { id: string }).id;
      if (!/^[0-9]{1,9}$/.test(id)) throw notFound();
      const [row] = await db.query('SELECT * FROM job_host_summaries WHERE id = $1', [Number(id)]);
      if (!row) throw notFound();
      if (!(await isVisible(db, request.ctx, getResource('job'), row.job_id))) throw forbidden();
      return serializeRow(db, request.ctx, jobHostSummaries, row);
    },
    OPTIONS: async () => detailOptions(jobHostSummaries, false),
  });
};
