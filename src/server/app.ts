import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { requestIdOf } from '../logging/structured.ts';
import cookie from '@fastify/cookie';
import { ApiError } from '../api/errors.ts';
import { jsonTextTooDeep, TOO_DEEP } from '../db/json-depth.ts';
import { registerConsole } from './console.ts';
import { anonymousIn } from '../api/context.ts';
import { authenticate } from '../auth/authenticate.ts';
import { PRODUCT_NAME, VERSION } from '../version.ts';
import { hostAllowed } from './allowed-hosts.ts';
import { errorHandler } from './error-handler.ts';
import { registerOpenApi } from './openapi.ts';
import { registerAssistantProxy } from './assistant-proxy.ts';
import { refuseNulBytes } from './nul-bytes.ts';
import { enforceRoutePermission, recordRouteTable } from '../api/permissions.ts';
import { authorizeRouteObject, unknownRouteActions } from '../api/route-objects.ts';
import { ROUTES } from '../composition/root.ts';
import { LOOPS, type StopLoop } from '../composition/loops.ts';
import { observeHttpLatency } from '../telemetry/metrics-http.ts';
import { traceRequests } from '../telemetry/tracing-http.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The services this app was built with (handlers registered once per process reach theirs here). */
    services: RunServices;
  }
}
import { configureSecretKey } from '../secrets/encryption.ts';
import { ensureProjectsRoot } from '../projects/config.ts';
import type { RunServices, RunRouteModule } from '../runs/run-services.ts';

export interface AppOptions {
  logger?: FastifyServerOptions['logger'];
  /** The service log (src/logging/structured.ts), instead of `logger`. */
  loggerInstance?: FastifyBaseLogger;
  /** One compact line per request at info (method, url, status, ms, user): SVC_ACCESS_LOG. */
  accessLog?: boolean;
  serverFactory?: FastifyServerOptions['serverFactory'];
  /** Run the background loops (heartbeat, dispatcher) in this process (default true). */
  dispatcher?: boolean;
  /** Endpoints after ROUTES: what a test adds as if it were listed there. */
  extraRoutes?: readonly RunRouteModule[];
  /** Tests: given, once the loops have started, a function that settles each loop able to (see StopLoop), in start order. */
  onLoopsStarted?: (settle: () => Promise<void>) => void;
}

const BODY_LIMIT = 10 * 1024 * 1024;

export async function buildApp(services: RunServices, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.loggerInstance ? { loggerInstance: options.loggerInstance } : { logger: options.logger ?? false }),
    // Fastify's two lines per request make the log hard to read: one compact line, when asked for.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: requestIdOf,
    serverFactory: options.serverFactory,
    bodyLimit: BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    trustProxy: services.env.trustedProxies,
  });

  recordRouteTable(app);
  traceRequests(app, services.tracing);
  await registerOpenApi(app);
  app.decorate('services', services);
  app.decorateRequest('ctx', null as never);
  app.decorateRequest('object', null as never);
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, {});
    if (jsonTextTooDeep(text)) return done(new ApiError(400, { detail: TOO_DEEP }), undefined);
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(new ApiError(400, { detail: `JSON parse error - ${(err as Error).message}` }), undefined);
    }
  });
  await app.register(cookie);

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-API-Product-Name', PRODUCT_NAME);
    reply.header('X-API-Product-Version', VERSION);
    // On every answer, errors included: a browser never guesses another type than the one declared.
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('X-Request-ID', request.id);
    // On every answer of the route, errors included: awxkit reads it to know what it may modify or delete.
    const allow = request.routeOptions.config?.allow;
    if (allow) reply.header('Allow', allow);
    request.ctx = anonymousIn(services);
    if (!hostAllowed(request.headers.host, services.env.allowedHosts)) {
      throw new ApiError(400, { detail: 'Invalid HTTP_HOST header.' });
    }
  });
  observeHttpLatency(app, services.caches.metrics);
  app.addHook('preValidation', async (request) => refuseNulBytes(request));
  app.addHook('preHandler', async (request, reply) => {
    // An unknown path is a 404 for everyone, as AWX resolves URLs before it authenticates.
    if (request.is404) return;
    request.ctx = { ...(await authenticate(services, request, reply)), clientIp: request.ip };
    enforceRoutePermission(request);
    await authorizeRouteObject(services, request);
  });
  if (options.accessLog) {
    app.addHook('onResponse', async (request, reply) => {
      request.log.info({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime), user: request.ctx?.user?.username ?? null }, 'request');
    });
  }
  app.addHook('onClose', async () => services.logShipper.close());
  app.setErrorHandler(errorHandler);
  registerConsole(app, services.db);

  // Secret values (credential inputs) are encrypted with a key derived from SVC_SECRET_KEY.
  configureSecretKey(services.env.secretKey);
  ensureProjectsRoot(services.env.projectsRoot);
  for (const register of [...ROUTES, ...(options.extraRoutes ?? [])]) await register(app, services);
  await registerAssistantProxy(app, services);
  app.addHook('onReady', async () => {
    const unknown = unknownRouteActions(services.resources, app.routeTable);
    if (unknown.length) throw new Error(`Routes name actions their access policies lack:\n${unknown.join('\n')}`);
  });
  const stops: StopLoop[] = [];
  if (options.dispatcher !== false) {
    for (const loop of LOOPS) stops.push(await loop.start(services));
    options.onLoopsStarted?.(async () => {
      for (const stop of stops) await stop.settle?.();
    });
  }
  app.addHook('onClose', async () => {
    for (const stop of stops.reverse()) await stop();
    // Last: the spans of what the loops ended with are exported too.
    await services.tracing.shutdown().catch(() => undefined);
  });
  return app;
}
