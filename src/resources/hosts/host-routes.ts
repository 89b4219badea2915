import type { RouteModule } from '../../api/extra-routes.ts';
import { viewOptions } from '../../api/options.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { objectPermission } from '../../api/permissions.ts';
import { registerVariableDataRoutes } from '../inventories/variable-data-routes.ts';
import { registerHostRunLists } from './host-run-lists.ts';

export const hostRoutes: RouteModule = (app, services) => {
  const hosts = services.resources.get('host');
  // The facts gathered from the host by jobs (fact caching); read-only.
  routeMethods(app, '/api/v2/hosts/:id/ansible_facts/', objectPermission('host'), {
    GET: async (request) => request.object.ansible_facts ?? {},
    OPTIONS: async () => viewOptions('Host Ansible Facts', 'The facts Ansible gathered from this host.'),
  });
  registerVariableDataRoutes(app, services, hosts);
  registerHostRunLists(app, services, hosts);
};
