import { registerCopyRoute } from '../../api/copy-route.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { getResource } from '../../api/resource.ts';

/** copy/: a copy of an execution environment (never managed), under a new name, in the same organization. */
export const executionEnvironmentRoutes: RouteModule = (app, services) => registerCopyRoute(app, services, getResource('execution_environment'));
