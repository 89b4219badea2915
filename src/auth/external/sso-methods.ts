/**
 * The browser sign-in methods (SAML, OIDC, social providers) GET /api/v2/auth/ lists and the
 * console's login page shows as buttons.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../api/context.ts';
import { viewOptions } from '../../api/options.ts';
import { PUBLIC } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';

export const AUTH_METHODS_URL = '/api/v2/auth/';

import type { SsoEntry, SsoMethod } from '../../api/context.ts';

export type { SsoEntry, SsoMethod };

/**
 * The address the service is reached at, for callbacks: SVC_URL_BASE (TOWER_URL_BASE) when set,
 * else the request's own scheme and host.
 */
export function serviceBaseUrl(services: Services, request: FastifyRequest): string {
  const configured = String(services.settings.get('SVC_URL_BASE') ?? '').replace(/\/+$/, '');
  return configured || `${request.protocol}://${request.host}`;
}

/** Backend names in AWX's order: google-oauth2 first, then by name. */
const awxOrder = (a: string, b: string) => (a.startsWith('google-oauth2') ? 'g' : a).localeCompare(b.startsWith('google-oauth2') ? 'g' : b);

/** GET /api/v2/auth/: public, what the service's sign-in methods (the composition root's SSO_METHODS) enable. */
export function authMethodsRoutes(app: FastifyInstance, services: Services): void {
  routeMethods(app, AUTH_METHODS_URL, PUBLIC, {
    GET: async (request) => {
      const base = serviceBaseUrl(services, request);
      const all: Record<string, SsoEntry> = {};
      for (const method of services.ssoMethods) Object.assign(all, method.entries(services, base));
      return Object.fromEntries(Object.entries(all).sort(([a], [b]) => awxOrder(a, b)));
    },
    OPTIONS: async () => viewOptions('Auth', 'The browser sign-in methods (SAML, OIDC, social login) the settings enable; LDAP and RADIUS use the password form.'),
  });
}
