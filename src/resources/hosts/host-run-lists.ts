/**
 * What jobs recorded about hosts, listed under a host or a group (the group's hosts and those of
 * its descendants, as AWX): job_events/ and job_host_summaries/. Only records of jobs the caller
 * may see are listed, whatever he may see of the host.
 */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../api/context.ts';
import { listPage, type Query } from '../../api/list.ts';
import { listOptions } from '../../api/options.ts';
import { objectPermission } from '../../api/permissions.ts';
import { type Resource } from '../../api/resource.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import type { Params } from '../../api/sql.ts';
import { GROUP_ALL_HOSTS } from '../../inventory/group-graph.ts';

/** SQL answering the ids of the hosts a record under `parent` may name. */
const hostsOf = (parent: Resource, params: Params, id: number) =>
  parent.name === 'host'
    ? params.add(id)
    : `SELECT group_all_host.host_id FROM ${GROUP_ALL_HOSTS} WHERE all_hosts_group.id = ${params.add(id)}`;

export function registerHostRunLists(app: FastifyInstance, services: Services, parent: Resource): void {
  const { db } = services;
  const lists = [
    { path: 'job_events', resource: services.resources.get('unified_job_event'), jobColumn: 'unified_job_id' },
    { path: 'job_host_summaries', resource: services.resources.get('job_host_summary'), jobColumn: 'job_id' },
  ];
  for (const list of lists) {
    routeMethods(app, `${parent.listPath}:id/${list.path}/`, objectPermission(parent.name), {
      GET: async (request) => {
        const jobs = services.resources.get('job');
        await jobs.access.prepare?.(request.ctx, db);
        return listPage(db, request.ctx, list.resource, request.url.split('?')[0], request.query as Query, (alias, params) => {
          const visible = jobs.access.visible(request.ctx, 'seen_job', params);
          return `${alias}.host_id IN (${hostsOf(parent, params, request.object.id)})
            AND ${alias}.${list.jobColumn} IN (SELECT seen_job.id FROM ${jobs.table} seen_job${visible ? ` WHERE ${visible}` : ''})`;
        });
      },
      OPTIONS: async () => listOptions(services.resources, list.resource, false),
    });
  }
}
