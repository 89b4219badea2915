import type { FastifyRequest } from 'fastify';
import { ApiError } from '../api/errors.ts';
import { anonymous, type RequestContext, type Services } from '../api/context.ts';
import { checkPassword, parseBasicHeader } from './basic.ts';

/**
 * Works out who is calling. Each authentication method answers a context or null;
 * the first that recognises the request wins. Sessions and tokens join this list.
 */
export async function authenticate(services: Services, request: FastifyRequest): Promise<RequestContext> {
  const basic = parseBasicHeader(request.headers.authorization);
  if (basic) {
    if (!services.settings.get<boolean>('AUTH_BASIC_ENABLED')) {
      throw new ApiError(401, { detail: 'Basic authentication is disabled.' });
    }
    const user = await checkPassword(services.db, basic.username, basic.password);
    if (!user) throw new ApiError(401, { detail: 'Invalid username/password.' });
    return { user, authMethod: 'basic', tokenScope: null };
  }
  return anonymous;
}
