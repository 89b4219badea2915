/** GET /api/v2/observability/: the OTEL_* settings in force and whether the collector answers (docs/observability.md). */
import { Type } from 'typebox';
import type { RouteModule } from '../api/extra-routes.ts';
import { viewOptions } from '../api/options.ts';
import type { RoutePermission } from '../api/permissions.ts';
import { routeMethods } from '../api/resource-routes.ts';
import { CollectorProbe } from './tracing-probe.ts';

export const OBSERVABILITY_URL = '/api/v2/observability/';

/** Superusers and system auditors, as the settings they show. */
const ADMIN_OR_AUDITOR: RoutePermission = { kind: 'admin_or_auditor' };

const ObservabilityAnswer = Type.Object({
  enabled: Type.Boolean({ description: 'OTEL_ENABLED: whether spans are made and exported.' }),
  service_name: Type.String({ description: 'OTEL_SERVICE_NAME.' }),
  exporter_endpoint: Type.String({ description: 'OTEL_EXPORTER_ENDPOINT: spans are posted to <endpoint>/v1/traces.' }),
  sampler: Type.String({ description: 'OTEL_TRACES_SAMPLER.' }),
  sampler_arg: Type.String({ description: 'OTEL_TRACES_SAMPLER_ARG as the samplers use it (0 to 1).' }),
  collector_healthy: Type.Boolean({ description: "Whether the endpoint's host and port took a TCP connection at the last probe." }),
  collector_last_check: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When the last probe of this endpoint was; null before the first.' }),
});

export const observabilityRoutes: RouteModule = (app, services) => {
  const probe = new CollectorProbe();
  routeMethods(app, OBSERVABILITY_URL, ADMIN_OR_AUDITOR, {
    GET: async () => {
      const config = services.tracing.config();
      const collector = probe.read(config.endpoint);
      return {
        enabled: config.enabled,
        service_name: config.serviceName,
        exporter_endpoint: config.endpoint,
        sampler: config.sampler,
        sampler_arg: String(config.samplerArg),
        collector_healthy: collector.healthy,
        collector_last_check: collector.checked?.toISOString() ?? null,
      };
    },
    OPTIONS: async () => viewOptions('Observability', 'The OpenTelemetry settings in force and a health probe of the collector (a TCP connect, cached 30 seconds).'),
  }, { GET: { summary: 'Observability', response: { 200: ObservabilityAnswer } } });
};
