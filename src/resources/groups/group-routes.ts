import { addRoutes } from '../../api/extra-routes.ts';
import { getResource } from '../../api/resource.ts';
import { registerVariableDataRoutes } from '../inventories/variable-data-routes.ts';

addRoutes((app, services) => registerVariableDataRoutes(app, services, getResource('group')));
