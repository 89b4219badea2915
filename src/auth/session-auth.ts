import type { FastifyRequest } from 'fastify';
import type { RequestContext, Services } from '../api/context.ts';

/** The svc_sessionid cookie. Placeholder until sessions exist. */
export async function fromSession(_services: Services, _request: FastifyRequest): Promise<RequestContext | null> {
  return null;
}
