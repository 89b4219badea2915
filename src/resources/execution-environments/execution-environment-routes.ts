import { registerCopyRoute } from '../../api/copy-route.ts';
import type { RouteModule } from '../../api/extra-routes.ts';

/** copy/: a copy of an execution environment (never managed), under a new name, in the same organization. */
export const executionEnvironmentRoutes: RouteModule = (app, services) => registerCopyRoute(app, services, services.resources.get('execution_environment'));
