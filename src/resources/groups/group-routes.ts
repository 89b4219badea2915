import type { RouteModule } from '../../api/extra-routes.ts';
import { getResource } from '../../api/resource.ts';
import { registerVariableDataRoutes } from '../inventories/variable-data-routes.ts';
import { registerHostRunLists } from '../hosts/host-run-lists.ts';

export const groupRoutes: RouteModule = (app, services) => {
  registerVariableDataRoutes(app, services, getResource('group'));
  registerHostRunLists(app, services, getResource('group'));
};
