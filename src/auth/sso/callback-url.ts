import type { FastifyRequest } from 'fastify';
import type { Services } from '../../api/context.ts';

export const ssoLoginPath = (backend: string) => `/sso/login/${backend}/`;
export const ssoCompletePath = (backend: string) => `/sso/complete/${backend}/`;

/** The service's address: SVC_URL_BASE, or the address the request came to when it is not set. */
export function serviceBase(services: Services, request: FastifyRequest): string {
  const base = String(services.settings.get('SVC_URL_BASE') ?? '').replace(/\/+$/, '');
  return base || `${request.protocol}://${request.host}`;
}

/** The callback address to register with a provider: {base_url}/sso/complete/<backend>/. */
export const callbackUrl = (services: Services, request: FastifyRequest, backend: string) => serviceBase(services, request) + ssoCompletePath(backend);
