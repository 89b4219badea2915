import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { RequestContext, Services } from '../api/context.ts';
import { forbidden, notAuthenticated, notFound } from '../api/errors.ts';
import { viewOptions } from '../api/options.ts';
import { PUBLIC } from '../api/permissions.ts';
import { routeMethods } from '../api/resource-routes.ts';
import { clusterRegistry } from '../telemetry/metrics-cluster.ts';
import { asJson, exposition, nodeRegistry, PROMETHEUS_CONTENT_TYPE } from '../telemetry/metrics-exposition.ts';
import { readCluster } from './metrics-readings.ts';

export const METRICS_URL = '/api/v2/metrics/';

const NAME = 'Metrics';
const DESCRIPTION =
  'Prometheus metrics: the cluster-wide ones read from the database, then those of the node answering. ' +
  '?format=json for JSON; ?dbonly=1 or ?subsystemonly=1 for one part; ?node= and ?metric= choose the node and families of the second part.';

const MetricsQuery = Type.Object({
  format: Type.Optional(Type.String({ description: '`json` for JSON, `txt` (the default) for the text exposition format.' })),
  dbonly: Type.Optional(Type.String({ description: '`1`: only the cluster-wide metrics, read from the database.' })),
  subsystemonly: Type.Optional(Type.String({ description: "`1`: only the answering node's own metrics." })),
  node: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description: "The node's metrics only if it is one of these." })),
  metric: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description: "Only these families of the node's metrics." })),
});

/** AWX's MetricsView: superusers and system auditors, or anyone when ALLOW_METRICS_FOR_ANONYMOUS_USERS is on. */
function mayRead(services: Services, ctx: RequestContext): void {
  if (services.settings.get<boolean>('ALLOW_METRICS_FOR_ANONYMOUS_USERS') === true) return;
  if (!ctx.user) throw notAuthenticated();
  if (!ctx.user.isSuperuser && !ctx.user.isSystemAuditor) throw forbidden();
}

const listOf = (value: unknown): string[] => (value === undefined ? [] : [value].flat().map(String));

/** The renderer AWX's content negotiation picks: ?format first, then Accept; the text format unless JSON is asked for. */
function wantsJson(format: unknown, accept: string | undefined): boolean {
  if (format !== undefined) {
    if (format === 'json') return true;
    if (format === 'txt' || format === 'api') return false;
    throw notFound();
  }
  for (const range of (accept ?? '').split(',').map((r) => r.split(';')[0].trim().toLowerCase())) {
    if (range === 'application/json') return true;
    if (range === 'text/plain' || range === 'text/*' || range === '*/*') return false;
  }
  return false;
}

/** GET /api/v2/metrics/ (AWX 24.6.1 awx/api/views/metrics.py), listed at the API root so awxkit offers `awx metrics`. */
export function registerMetricsView(app: FastifyInstance, services: Services): void {
  routeMethods(app, METRICS_URL, PUBLIC, {
    GET: async (request, reply) => {
      mayRead(services, request.ctx);
      const query = request.query as Record<string, unknown>;
      const json = wantsJson(query.format, request.headers.accept);
      const registries = [];
      if (query.subsystemonly !== '1') registries.push(clusterRegistry(await readCluster(services)));
      const nodes = listOf(query.node);
      if (query.dbonly !== '1' && (!nodes.length || nodes.includes(services.env.nodeName))) {
        const metrics = services.caches.metrics;
        metrics.recordPool(services.db.poolStats());
        registries.push(nodeRegistry(metrics, services.env.nodeName, listOf(query.metric)));
      }
      if (json) return asJson(registries);
      reply.type(PROMETHEUS_CONTENT_TYPE);
      return exposition(registries);
    },
    OPTIONS: async (request) => {
      mayRead(services, request.ctx);
      return { ...viewOptions(NAME, DESCRIPTION), renders: ['text/plain', 'application/json'] };
    },
  }, { GET: { summary: NAME, description: DESCRIPTION, querystring: MetricsQuery } });
}
