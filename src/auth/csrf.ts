import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Services } from '../api/context.ts';
import { ApiError } from '../api/errors.ts';
import { CSRF_COOKIE } from './sessions.ts';

export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

const csrfFailed = (reason: string) => new ApiError(403, { detail: `CSRF Failed: ${reason}` });

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route checks CSRF itself (the login form) or is called by other sites with no session
     * (SAML's POST binding, provisioning callbacks, webhook and event receivers).
     */
    csrfExempt?: boolean;
  }
}

export const isCsrfExempt = (request: FastifyRequest) => request.routeOptions.config.csrfExempt === true;

function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

/** The origin this request was addressed to (scheme from X-Forwarded-Proto behind a proxy, host from Host). */
function ownOrigin(request: FastifyRequest): string | null {
  const host = request.headers.host;
  return host ? originOf(`${request.protocol}://${host}`) : null;
}

/**
 * Whether an origin may send session-authenticated writes: one of SVC_CSRF_TRUSTED_ORIGINS or of
 * the CSRF_TRUSTED_ORIGINS setting
 * (`https://*.example.com` covers the subdomains of example.com) or the origin the request was
 * sent to, as Django accepts.
 */
export function originTrusted(services: Services, request: FastifyRequest, origin: string): boolean {
  const candidate = originOf(origin);
  if (!candidate) return false;
  if (candidate === ownOrigin(request)) return true;
  const { protocol, host } = new URL(candidate);
  return [...services.env.csrfTrustedOrigins, ...services.settings.get('CSRF_TRUSTED_ORIGINS')].some((entry) => {
    const wildcard = /^(https?):\/\/\*\.(.+)$/i.exec(entry.trim());
    if (wildcard) {
      const domain = originOf(`${wildcard[1]}://${wildcard[2]}`);
      if (!domain) return false;
      const d = new URL(domain);
      return protocol === d.protocol && host.endsWith(`.${d.host}`);
    }
    return originOf(entry.trim()) === candidate;
  });
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** Origin, or without it Referer, must name a trusted origin. */
export function checkCsrfOrigin(services: Services, request: FastifyRequest): void {
  const origin = header(request, 'origin');
  if (origin !== undefined) {
    if (!originTrusted(services, request, origin)) throw csrfFailed(`Origin checking failed - ${origin} does not match any trusted origins.`);
    return;
  }
  const referer = header(request, 'referer');
  if (!referer) throw csrfFailed('Referer checking failed - no Referer.');
  if (!originOf(referer)) throw csrfFailed('Referer checking failed - Referer is malformed.');
  if (!originTrusted(services, request, referer)) throw csrfFailed(`Referer checking failed - ${referer} does not match any trusted origins.`);
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The double-submit check of a session-authenticated write: header X-CSRFToken (or, for HTML
 * forms, the field csrfmiddlewaretoken) equal to the csrftoken cookie.
 */
export function checkCsrfToken(request: FastifyRequest, formToken?: string): void {
  const cookie = request.cookies[CSRF_COOKIE];
  if (!cookie) throw csrfFailed('CSRF cookie not set.');
  const token = header(request, 'x-csrftoken') ?? formToken;
  if (!token) throw csrfFailed('CSRF token missing.');
  if (!sameToken(token, cookie)) throw csrfFailed('CSRF token incorrect.');
}

/** Everything a write through a session must pass. Safe methods and exempt routes pass as they are. */
export function enforceCsrf(services: Services, request: FastifyRequest): void {
  if (SAFE_METHODS.has(request.method) || isCsrfExempt(request)) return;
  checkCsrfOrigin(services, request);
  checkCsrfToken(request);
}

/**
 * CSRF rules of a sign-in (the login form, a passkey's sign-in). A caller already holding a
 * session passes the full check (as any write through a session). Otherwise a sign-in is accepted
 * as it comes (the awx CLI fetches the csrftoken cookie first, scripts may not), but a cross-site
 * Origin is refused, and a token that is sent must match the cookie.
 */
export function checkSignInCsrf(services: Services, request: FastifyRequest, formToken?: string): void {
  if (request.ctx.authMethod === 'session') {
    checkCsrfOrigin(services, request);
    checkCsrfToken(request, formToken);
    return;
  }
  const origin = header(request, 'origin');
  if (origin !== undefined && !originTrusted(services, request, origin)) throw csrfFailed(`Origin checking failed - ${origin} does not match any trusted origins.`);
  const token = header(request, 'x-csrftoken') ?? formToken;
  if (request.cookies[CSRF_COOKIE] && token) checkCsrfToken(request, formToken);
}
