/**
 * The assistant service's HTTP app: chat, health, index and its API document, under /api/v1. Its
 * parts come in as arguments (retrieval, the language model server, the main service that checks
 * credentials), so the process (process.ts) and the tests build it the same way.
 */
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { PRODUCT_NAME, VERSION } from '../version.ts';
import { requireAccess } from './access.ts';
import { CALLER_TTL_MS, MainServiceCallers } from './callers.ts';
import { chatRoute } from './chat-route.ts';
import type { LlmConfig } from './config.ts';
import { LlmClient } from './llm-client.ts';
import { MainOpenApi } from './main-openapi.ts';
import type { Retrieval } from './retrieval/retrieval.ts';
import { BODY_LIMIT } from './schemas.ts';
import { serviceRoutes } from './service-routes.ts';
import { checkRequestPart, errorHandler, unprocessable } from './validation.ts';

export interface AssistantDeps {
  retrieval: Retrieval;
  llm: LlmConfig;
  /** The main service, which checks the callers' credentials. */
  mainUrl: string;
  logger?: FastifyServerOptions['logger'];
  /** The main service's API document for the index; made from mainUrl when not given. */
  openApi?: MainOpenApi;
  /** Addresses whose X-Forwarded-For is believed (the main service's proxy on loopback by default). */
  trustedProxies?: string[];
  /** How long a caller the main service accepted is believed without asking again. */
  callerTtlMs?: number;
}

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/api/v1/docs';

/** The path prefix a proxy serves this app under (the main service sends X-Forwarded-Prefix: /assistant), for the document's server. */
function servedUnder(request: FastifyRequest): string {
  const prefix = request.headers['x-forwarded-prefix'];
  return typeof prefix === 'string' && /^(\/[A-Za-z0-9._~-]+)+$/.test(prefix) ? prefix : '/';
}

const withServer = (document: Record<string, any>, request: FastifyRequest) => ({ ...document, servers: [{ url: servedUnder(request) }] });

export async function buildAssistant(deps: AssistantDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: BODY_LIMIT,
    trustProxy: deps.trustedProxies ?? ['loopback'],
    routerOptions: { ignoreTrailingSlash: true },
  });
  const llm = new LlmClient(deps.llm);
  const openApi = deps.openApi ?? new MainOpenApi(deps.mainUrl);

  app.setValidatorCompiler(checkRequestPart);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  app.setSchemaErrorFormatter(unprocessable);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not Found' }));
  app.decorateRequest('caller', null);
  await app.register(cookie);
  app.addHook('onRequest', requireAccess(new MainServiceCallers(deps.mainUrl, deps.callerTtlMs ?? CALLER_TTL_MS)));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: `${PRODUCT_NAME} assistant API`,
        version: VERSION,
        description: `Questions about ${PRODUCT_NAME} answered from its documentation, streamed. Served by the main service under /assistant.`,
      },
      components: {
        securitySchemes: {
          basic: { type: 'http', scheme: 'basic' },
          token: { type: 'http', scheme: 'bearer', description: 'A Drover personal access token or OAuth2 access token.' },
          session: { type: 'apiKey', in: 'cookie', name: 'svc_sessionid', description: 'A Drover browser session (writes also need X-CSRFToken).' },
        },
      },
      security: [{ basic: [] }, { token: [] }, { session: [] }],
    },
  });
  // The explorer's page, scripts and document are public, as the document is.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(DOCS_PATH)) route.config = { ...route.config, assistantAccess: 'public' };
  });
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    staticCSP: true,
    transformSpecification: (document, request) => withServer(document, request),
  });

  app.get(OPENAPI_PATH, { config: { assistantAccess: 'public' }, schema: { hide: true } }, async (request) => withServer(app.swagger(), request));
  serviceRoutes(app, { retrieval: deps.retrieval, llm, openApi });
  chatRoute(app, { retrieval: deps.retrieval, llm });
  return app;
}
