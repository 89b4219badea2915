import type { FastifyInstance } from 'fastify';
import type { Services } from '../api/context.ts';
import { allResources } from '../api/resource.ts';
import { registerResourceRoutes } from '../api/resource-routes.ts';
import { registerExtraRoutes } from '../api/extra-routes.ts';
import { registerSettingsRoutes } from '../config/settings/routes.ts';
import { registerLoginRoutes } from '../auth/login-routes.ts';
import { registerOAuth2Routes } from '../auth/oauth2-routes.ts';
import '../resources/index.ts';
import { registerRootRoutes } from './root-routes.ts';
import { registerLiveOutput } from '../live/routes.ts';

export async function registerRoutes(app: FastifyInstance, services: Services): Promise<void> {
  registerRootRoutes(app, services, { settings: '/api/v2/settings/' });
  for (const resource of allResources().filter((r) => r.topLevel)) registerResourceRoutes(app, services, resource);
  await registerExtraRoutes(app, services);
  registerSettingsRoutes(app, services);
  await registerLoginRoutes(app, services);
  await registerOAuth2Routes(app, services);
  await registerLiveOutput(app, services);
}
