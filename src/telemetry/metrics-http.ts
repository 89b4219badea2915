import type { FastifyInstance } from 'fastify';
import { processRegistry, type ServiceMetrics } from './metrics.ts';

/**
 * Observes every answer of `app` into drover_http_request_duration_seconds, labelled by the route's
 * pattern (`/api/v2/jobs/:id/`, never the URL itself, so labels stay few); a path no route
 * matches is `unmatched`. Also starts the process's default metrics, so the event loop's lag is
 * measured from the start.
 */
export function observeHttpLatency(app: FastifyInstance, metrics: ServiceMetrics): void {
  processRegistry();
  app.addHook('onResponse', async (request, reply) => {
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    metrics.http.observe({ route, method: request.method, status_code: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
}
