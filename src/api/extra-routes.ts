import type { FastifyInstance } from 'fastify';
import type { Services } from './context.ts';

/**
 * Endpoints beyond a resource's conventional ones (update/, launch/, stdout/...). Each `*-routes.ts`
 * exports one; the composition root lists them, and they are registered after every resource's own routes.
 * Those that launch or read runs take the run services instead (RunRouteModule, src/runs/run-services.ts).
 */
export type RouteModule = (app: FastifyInstance, services: Services) => void | Promise<void>;
