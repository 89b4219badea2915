/**
 * The OpenAPI document of the API (GET /api/v2/openapi.json, see root-routes.ts), made by
 * @fastify/swagger from the schemas the routes declare (src/api/route-schemas.ts). Call before
 * any route is registered: the document holds the routes registered after it.
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { describeOnly } from '../api/route-schemas.ts';
import { awxSchemaError } from '../api/schema-errors.ts';
import { ANY_SECURITY, SECURITY_SCHEMES } from '../auth/openapi-security.ts';
import { PRODUCT_NAME, VERSION } from '../version.ts';

export const OPENAPI_URL = '/api/v2/openapi.json';

/** Operations are grouped by the first segment after the API version (organizations, job_templates...). */
function tagOf(url: string): string {
  const [, api, version, segment] = url.split('/');
  if (api === 'websocket') return 'live output';
  if (api !== 'api') return 'web console';
  if (version === 'o') return 'oauth2';
  if (version === 'login' || version === 'logout') return 'authentication';
  return segment || 'root';
}

function describeRoute({ schema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }) {
  // Public routes (the API root, ping, login, OAuth2, callbacks) need no credentials.
  const open = route.config?.permission?.kind === 'public';
  return { url, schema: { ...schema, tags: schema?.tags ?? [tagOf(url)], ...(open && { security: [] }) } };
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  // Route schemas describe: the field declarations and the handlers validate, responses stay plain JSON.
  app.setValidatorCompiler(describeOnly);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // What a route does check (MethodSchema.checkBody) is refused the way AWX refuses a body.
  app.setSchemaErrorFormatter(awxSchemaError);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${PRODUCT_NAME} REST API`,
        version: VERSION,
        description: `The ${PRODUCT_NAME} API, compatible with Ansible AWX's /api/v2/. Lists take page, page_size, search, order_by and field filters (see docs/api.md).`,
      },
      components: { securitySchemes: SECURITY_SCHEMES },
      security: ANY_SECURITY,
    },
    transform: describeRoute,
  });
}
