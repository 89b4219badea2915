import type { FastifyRequest } from 'fastify';
import type { RequestContext, Services } from '../api/context.ts';

/** Authorization: Bearer <token>. Placeholder until OAuth2 tokens exist. */
export async function fromBearerToken(_services: Services, _request: FastifyRequest): Promise<RequestContext | null> {
  return null;
}
