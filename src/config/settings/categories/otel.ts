import { boolean, choice, float, text } from '../../../api/fields.ts';
import { category, setting } from '../types.ts';

export const TRACES_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

/** OpenTelemetry traces (docs/observability.md): read at each span and each export, so a change takes effect without a restart. */
export const otel = category({
  slug: 'otel',
  name: 'OpenTelemetry',
  description: 'Traces of requests, launches and runs, exported to an OpenTelemetry collector over OTLP/HTTP.',
  settings: {
    OTEL_ENABLED: setting<boolean>(
      boolean({ default: false, label: 'Enable Tracing', helpText: 'Make spans of requests, launches, gates, task manager passes and runs, and export them to the collector.' }),
    ),
    OTEL_EXPORTER_ENDPOINT: setting<string>(
      text({
        default: 'http://127.0.0.1:4318',
        label: 'OTLP/HTTP Endpoint',
        helpText: 'Base address of the OpenTelemetry collector (OTLP over HTTP): spans are posted as JSON to <endpoint>/v1/traces.',
        allowBlank: false,
        pattern: /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i,
        patternMessage: 'Enter a valid URL starting with http:// or https://.',
        maxLength: 2048,
      }),
    ),
    OTEL_SERVICE_NAME: setting<string>(
      text({ default: 'drover', allowBlank: false, maxLength: 255, label: 'Service Name', helpText: 'The service.name of the spans this service exports.' }),
    ),
    OTEL_TRACES_SAMPLER: setting<TracesSampler>(
      choice(TRACES_SAMPLERS, {
        default: 'parentbased_traceidratio',
        label: 'Traces Sampler',
        helpText: "Which traces are kept, as OpenTelemetry's OTEL_TRACES_SAMPLER names them: the parentbased_ samplers follow the caller's decision (a traceparent header, a run's launch) and use the rest for new traces.",
      }),
    ),
    OTEL_TRACES_SAMPLER_ARG: setting<number>(
      float({ default: 0.1, label: 'Traces Sampler Argument', helpText: 'The share of new traces the traceidratio samplers keep, from 0 to 1 (a value outside is taken as the nearest end).' }),
    ),
  },
});
