/**
 * A span for each HTTP request: named by its route pattern (`POST /api/v2/job_templates/:id/launch/`),
 * continuing the caller's trace when it sends a W3C traceparent header, active while the handler
 * runs (so a launch is its child), ended with the response's status and the caller's user id.
 */
import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { TracedSpan, Tracing } from './tracing.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span (a no-op one when tracing is off). */
    traceSpan: TracedSpan | null;
  }
}

const header = (request: FastifyRequest): string | null => {
  const value = request.headers.traceparent;
  return typeof value === 'string' ? value : null;
};

/** Registers the hooks; call before any route, so every handler runs inside its request's span. */
export function traceRequests(app: FastifyInstance, tracing: Tracing): void {
  app.decorateRequest('traceSpan', null);
  app.addHook('onRequest', async (request) => {
    if (!tracing.enabled) return;
    const route = request.routeOptions.url;
    request.traceSpan = tracing.start(route ? `${request.method} ${route}` : request.method, {
      'http.request.method': request.method,
      'http.route': route,
      'url.path': request.url.split('?')[0],
    }, { parent: header(request), kind: 'server' });
  });
  app.addHook('onRoute', (route) => {
    const handler = route.handler as RouteHandlerMethod;
    route.handler = function traced(request, reply) {
      return request.traceSpan ? tracing.within(request.traceSpan, () => handler.call(this, request, reply)) : handler.call(this, request, reply);
    };
  });
  const end = async (request: FastifyRequest, status: number | null) => {
    const span = request.traceSpan;
    if (!span) return;
    span.set({ 'http.response.status_code': status, 'user.id': request.ctx?.user?.id || undefined });
    if (status === null || status >= 500) span.fail(status === null ? 'The client went away.' : `HTTP ${status}`);
    span.end();
  };
  app.addHook('onResponse', async (request, reply) => end(request, reply.statusCode));
  app.addHook('onRequestAbort', async (request) => end(request, null));
}
