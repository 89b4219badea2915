import type { FastifyInstance } from 'fastify';
import type { Services } from '../../api/context.ts';

// Filled in by the settings module.
export function registerSettingsRoutes(_app: FastifyInstance, _services: Services): void {}
