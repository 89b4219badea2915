import type { RouteModule } from '../../api/extra-routes.ts';
import { viewOptions } from '../../api/options.ts';
import { routeMethods, visibleObject } from '../../api/resource-routes.ts';
import { getResource } from '../../api/resource.ts';
import { resourcePermission } from '../../api/permissions.ts';
import { registerVariableDataRoutes } from '../inventories/variable-data-routes.ts';

export const hostRoutes: RouteModule = (app, services) => {
  const hosts = getResource('host');
  // The facts gathered from the host by jobs (fact caching); read-only.
  routeMethods(app, '/api/v2/hosts/:id/ansible_facts/', resourcePermission('host', 'ansible_facts'), {
    GET: async (request) => (await visibleObject(services, request, hosts)).ansible_facts ?? {},
    OPTIONS: async (request) => {
      await visibleObject(services, request, hosts);
      return viewOptions('Host Ansible Facts', 'The facts Ansible gathered from this host.');
    },
  });
  registerVariableDataRoutes(app, services, hosts);
};
