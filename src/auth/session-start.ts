import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CurrentUser, Services } from '../api/context.ts';
import { clientOf, recordAudit } from '../audit/record.ts';
import { isLoopbackBrowser } from './loopback.ts';
import { sessionContext } from './session-auth.ts';
import { createSession, newCsrfToken, SESSION_COOKIE, sessionCookieAge, setCsrfCookie, setSessionCookie } from './sessions.ts';

export const insecureLoginMessage = (services: Services, request: FastifyRequest) =>
  `Login over plain HTTP is refused because SESSION_COOKIE_SECURE is true and the session cookie would not travel back: ` +
  `use HTTPS (${secureAddress(services, request)}) or set SESSION_COOKIE_SECURE=false.`;

/** The HTTPS address of the page the request came to, on the service's HTTPS port. */
export const secureAddress = (services: Services, request: FastifyRequest) => {
  const host = request.hostname.includes(':') && !request.hostname.startsWith('[') ? `[${request.hostname}]` : request.hostname;
  return `https://${host}${services.env.httpsPort === 443 ? '' : `:${services.env.httpsPort}`}/`;
};

/**
 * Whether a login on this request would set a cookie the browser never sends back. Browsers keep
 * Secure cookies on http://localhost and loopback addresses (secure contexts), so a plain-HTTP login
 * from a browser on this very machine works and is let through; from anywhere else it is refused.
 */
export const loginInsecure = (services: Services, request: FastifyRequest) =>
  services.env.sessionCookieSecure && request.protocol !== 'https' && !isLoopbackBrowser(request);
export interface SessionStartOptions {
  /** The sign-in was a passkey's: the session has passed the second factor (docs/webauthn.md). */
  secondFactorPassed?: boolean;
}

/**
 * Starts the browser session of a user who has just proven who he is (the login form, an SSO
 * callback, a passkey): a fresh session key, a fresh CSRF token, the login audited, and the
 * sessions beyond SESSIONS_PER_USER ended and audited.
 */
export async function startSession(
  services: Services, request: FastifyRequest, reply: FastifyReply, user: CurrentUser, detail?: Record<string, unknown>, options: SessionStartOptions = {},
): Promise<void> {
  const { db } = services;
  const client = clientOf(request);
  const session = await createSession(services, user, client, request.cookies[SESSION_COOKIE], options.secondFactorPassed === true);
  const ctx = sessionContext(services, user);
  const target = { type: 'user', id: user.id, name: user.username };
  await recordAudit(db, { type: 'auth.login', ctx, target, client, ...(detail && { detail }) });
  if (session.evicted) {
    await recordAudit(db, {
      type: 'auth.session_expired',
      ctx,
      target,
      client,
      detail: { reason: 'session_limit', sessions: session.evicted, limit: services.settings.get<number>('SESSIONS_PER_USER') },
    });
  }
  const age = sessionCookieAge(services.settings);
  setSessionCookie(services, reply, session.key, age);
  // A new token with every login, so one seen before the login is of no use after it.
  setCsrfCookie(services, reply, newCsrfToken());
  reply.header('Session-Timeout', String(age));
}
