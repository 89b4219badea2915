/**
 * The OTEL_* settings as the tracing layer reads them (src/config/settings/categories/otel.ts), and
 * the sampler each names. Read at every span and every export: a change takes effect at once.
 */
import { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler, type Sampler } from '@opentelemetry/sdk-trace-base';
import type { TracesSampler } from '../config/settings/categories/otel.ts';

/** What the tracing layer reads of the service's settings (Settings.get: synchronous, from memory). */
export interface SettingsReader {
  get(key: string): unknown;
}

export interface TracingConfig {
  enabled: boolean;
  endpoint: string;
  serviceName: string;
  sampler: TracesSampler;
  /** OTEL_TRACES_SAMPLER_ARG clamped to 0..1. */
  samplerArg: number;
}

/** OTEL_TRACES_SAMPLER_ARG as the samplers use it: a number from 0 to 1, the nearest end for one outside. */
export function clampRatio(value: unknown): number {
  const n = Number(value);
  if (!Number.isFinite(n)) return 0;
  return Math.min(1, Math.max(0, n));
}

export function tracingConfig(settings: SettingsReader): TracingConfig {
  return {
    enabled: settings.get('OTEL_ENABLED') === true,
    endpoint: String(settings.get('OTEL_EXPORTER_ENDPOINT') ?? ''),
    serviceName: String(settings.get('OTEL_SERVICE_NAME') ?? ''),
    sampler: settings.get('OTEL_TRACES_SAMPLER') as TracesSampler,
    samplerArg: clampRatio(settings.get('OTEL_TRACES_SAMPLER_ARG')),
  };
}

/** The sampler OpenTelemetry's OTEL_TRACES_SAMPLER names, with its argument. */
export function samplerFor(name: TracesSampler, ratio: number): Sampler {
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    default:
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}

/** Where the OTLP/HTTP exporter posts spans: <endpoint>/v1/traces. */
export const tracesUrl = (endpoint: string): string => `${endpoint.replace(/\/+$/, '')}/v1/traces`;
