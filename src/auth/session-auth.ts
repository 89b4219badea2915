import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerIn, type CurrentUser, type RequestContext, type ServiceView, type Services } from '../api/context.ts';
import { ApiError } from '../api/errors.ts';
import { clientOf, recordAudit } from '../audit/record.ts';
import { enforceCsrf } from './csrf.ts';
import { secondFactorRequiredError } from './second-factor.ts';
import { clearSessionCookie, SESSION_COOKIE, setSessionCookie, touchSession } from './sessions.ts';

/** A caller signed in with a session. */
export const sessionContext = (service: ServiceView, user: CurrentUser | null): RequestContext => callerIn(service, user, 'session');

/**
 * The svc_sessionid cookie. A live session authenticates the request and slides its expiry
 * (the cookie is sent again with the new Max-Age, and Session-Timeout says how long it lasts);
 * writes must pass the CSRF check. An expired or unknown session is dropped: public endpoints
 * answer as to anyone, others 401. A session that must still pass its second factor reaches only
 * the routes exempt from it; public endpoints answer it as to anyone, others 401.
 */
export async function fromSession(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<RequestContext | null> {
  const key = request.cookies[SESSION_COOKIE];
  if (!key) return null;
  const found = await touchSession(services, key);
  if (found.state === 'active') {
    const ctx = sessionContext(services, found.user);
    if (found.secondFactorPending) {
      // The password alone does not open the API: only the routes that lead to the second factor answer.
      const { config } = request.routeOptions;
      if (!config.secondFactorExempt) {
        if (config.permission?.kind === 'public') return null;
        throw secondFactorRequiredError();
      }
      ctx.secondFactorPending = true;
    }
    enforceCsrf(services, request);
    setSessionCookie(services, reply, key, found.age);
    reply.header('Session-Timeout', String(found.age));
    return ctx;
  }
  clearSessionCookie(services, reply);
  if (found.state === 'expired') {
    await recordAudit(services.db, {
      type: 'auth.session_expired',
      actorUsername: found.username,
      ctx: sessionContext(services, { id: found.userId, username: found.username, isSuperuser: false, isSystemAuditor: false }),
      target: { type: 'user', id: found.userId, name: found.username },
      client: clientOf(request),
      detail: { reason: 'expired' },
    });
  }
  if (request.routeOptions.config.permission?.kind === 'public') return null;
  throw new ApiError(401, { detail: 'Your session has expired or ended. Log in again.' });
}
