import type { FastifyRequest } from 'fastify';
import type { Services } from '../../api/context.ts';
import { serviceBaseUrl } from '../external/sso-methods.ts';

export const ssoLoginPath = (backend: string) => `/sso/login/${backend}/`;
export const ssoCompletePath = (backend: string) => `/sso/complete/${backend}/`;

/** The callback address to register with a provider: {base_url}/sso/complete/<backend>/. */
export const callbackUrl = (services: Services, request: FastifyRequest, backend: string) => serviceBaseUrl(services, request) + ssoCompletePath(backend);
