import type { RouteModule } from '../../api/extra-routes.ts';
import { registerVariableDataRoutes } from '../inventories/variable-data-routes.ts';
import { registerHostRunLists } from '../hosts/host-run-lists.ts';

export const groupRoutes: RouteModule = (app, services) => {
  registerVariableDataRoutes(app, services, services.resources.get('group'));
  registerHostRunLists(app, services, services.resources.get('group'));
};
