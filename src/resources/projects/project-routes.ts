import { ApiError } from '../../api/errors.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { actionRouteSchemas } from '../../api/action-schemas.ts';
import { serializeRow } from '../../api/serialize.ts';
import { objectPermission } from '../../api/permissions.ts';
import { updateOptions, viewOptions } from '../../api/options.ts';
import { projectInventoryFiles, projectPlaybooks } from '../../projects/recorded-files.ts';
import { mayUpdateProject } from './project-access.ts';
import { launchOrRefuse } from '../../runs/launch.ts';
import { registerCopyRoute } from '../../api/copy-route.ts';
import { projectCopy } from './project-copy.ts';
import type { RunRouteModule } from '../../runs/run-services.ts';
import type { ProjectRow } from '../../db/tables.ts';

export const projectRoutes: RunRouteModule = (app, services) => {
  const { db } = services;
  const base = '/api/v2/projects/:id/';
  routeMethods<ProjectRow>(app, `${base}update/`, objectPermission('project', { POST: 'update' }), {
    GET: async (request) => {
      const project = request.object;
      return { can_update: project.scm_type !== '' && (await mayUpdateProject(request.ctx, db, project.id)) };
    },
    POST: async (request, reply) => {
      const project = request.object;
      if (project.scm_type === '') {
        reply.header('Allow', 'GET, HEAD, OPTIONS');
        throw new ApiError(405, { detail: 'Manual projects have nothing to update from.' });
      }
      // The project update kind: AWX answers {project_update: id, ...detail}.
      const kind = services.runKinds.updateKindOf('project_id');
      const update = (await launchOrRefuse(services.launches, request.ctx, services.runKinds.launcher(kind.name, 'manual'), project, null)).run;
      const body = await serializeRow(db, request.ctx, services.resources.get(kind.name), update);
      return reply.code(202).send({ [kind.name]: update.id, ...body });
    },
    OPTIONS: async () => updateOptions('Project Update', 'GET: whether the project can be updated. POST: starts a sync from source control.'),
  }, actionRouteSchemas('can_update', 'Start a sync from source control', 202));
  registerCopyRoute(app, services, services.resources.get('project'), projectCopy);
  const listings = [
    { path: 'playbooks', find: projectPlaybooks, name: 'Project Playbooks', description: 'Playbooks found in the project.' },
    { path: 'inventories', find: projectInventoryFiles, name: 'Project Inventories', description: 'Inventory files found in the project.' },
  ];
  for (const listing of listings) {
    routeMethods<ProjectRow>(app, `${base}${listing.path}/`, objectPermission('project'), {
      GET: async (request) => listing.find(services, request.object),
      OPTIONS: async () => viewOptions(listing.name, listing.description),
    });
  }
};
