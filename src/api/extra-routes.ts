import type { FastifyInstance } from 'fastify';
import type { Services } from './context.ts';

type RouteRegistration = (app: FastifyInstance, services: Services) => void | Promise<void>;

const registrations: RouteRegistration[] = [];

/**
 * Endpoints a resource adds beyond the conventional ones (update/, launch/, stdout/...). Call at
 * module load in the resource's folder; they are registered after every resource's own routes.
 */
export function addRoutes(register: RouteRegistration): void {
  registrations.push(register);
}

export async function registerExtraRoutes(app: FastifyInstance, services: Services): Promise<void> {
  for (const register of registrations) await register(app, services);
}
