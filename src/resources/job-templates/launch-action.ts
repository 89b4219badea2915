/**
 * POST /job_templates/{id}/launch/ is answered by the jobs module: it registers its handler here,
 * and this module's route (which also answers GET and OPTIONS on that URL) calls it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export type LaunchAction = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

let action: LaunchAction | null = null;

/** Called once by the jobs module at load time. */
export function setLaunchAction(handler: LaunchAction): void {
  action = handler;
}

export const launchAction = (): LaunchAction | null => action;
