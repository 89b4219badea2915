/**
 * Who may call each endpoint of the assistant: anyone (health, the API document), any signed-in
 * Drover user (chat), or a superuser (index). The main service decides who the caller is
 * (callers.ts); writes through a browser session must also pass the double-submit CSRF check the
 * main service asks of its own writes.
 */
import type { FastifyRequest } from 'fastify';
import { ApiError, forbidden, notAuthenticated } from '../api/errors.ts';
import { checkCsrfToken, SAFE_METHODS } from '../auth/csrf.ts';
import { CallerCheckFailed, type Caller, type MainServiceCallers } from './callers.ts';

export type AssistantAccess = 'public' | 'user' | 'superuser';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call an endpoint of the assistant service. */
    assistantAccess?: AssistantAccess;
  }
  interface FastifyRequest {
    /** The signed-in caller of an endpoint that needs one. */
    caller: Caller | null;
  }
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return (Array.isArray(value) ? value[0] : value) || undefined;
};

/** The onRequest hook: refuses before the body is read. A route declaring no access is refused. */
export function requireAccess(callers: MainServiceCallers) {
  return async (request: FastifyRequest): Promise<void> => {
    request.caller = null;
    if (request.is404) return;
    const access = request.routeOptions.config.assistantAccess;
    if (access === 'public') return;
    if (!access) throw forbidden('This endpoint declares no permission.');
    const authorization = header(request, 'authorization');
    const cookie = header(request, 'cookie');
    if (!authorization && !cookie) throw notAuthenticated();
    let check;
    try {
      check = await callers.check({ authorization, cookie, address: request.ip });
    } catch (err) {
      if (!(err instanceof CallerCheckFailed)) throw err;
      request.log.warn(err.message);
      throw new ApiError(503, { detail: err.message });
    }
    if ('refused' in check) throw new ApiError(check.refused, { detail: check.detail });
    // As the main service does: header credentials first; without them the session cookie authenticated the request.
    if (!authorization && !SAFE_METHODS.has(request.method)) checkCsrfToken(request);
    if (access === 'superuser' && !check.caller.isSuperuser) throw forbidden();
    request.caller = check.caller;
  };
}
