/**
 * The sampler and exporter of a service's tracer provider, each asking the settings in force at
 * every use: a sampler or endpoint changed at run time applies to the next span or export, with no
 * provider to rebuild (docs/observability.md).
 */
import type { Attributes, Context, Link, SpanKind } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { ReadableSpan, Sampler, SamplingResult, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { samplerFor, tracesUrl, tracingConfig, type SettingsReader } from './tracing-config.ts';

const EXPORT_TIMEOUT_MS = 10_000;

/** OTEL_TRACES_SAMPLER with OTEL_TRACES_SAMPLER_ARG, as they are when a span starts. */
export class SettingsSampler implements Sampler {
  private made: { key: string; sampler: Sampler } | null = null;

  constructor(private readonly settings: SettingsReader) {}

  shouldSample(context: Context, traceId: string, name: string, kind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    return this.current().shouldSample(context, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `SettingsSampler{${this.current().toString()}}`;
  }

  private current(): Sampler {
    const { sampler, samplerArg } = tracingConfig(this.settings);
    const key = `${sampler}:${samplerArg}`;
    if (this.made?.key !== key) this.made = { key, sampler: samplerFor(sampler, samplerArg) };
    return this.made.sampler;
  }
}

/** An OTLP/HTTP (JSON) exporter to OTEL_EXPORTER_ENDPOINT as it is at each export; the one of a former endpoint is shut down once its sends are done. */
export class SettingsExporter implements SpanExporter {
  private current: { endpoint: string; exporter: OTLPTraceExporter } | null = null;
  private readonly retiring = new Set<Promise<void>>();

  constructor(private readonly settings: SettingsReader) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const endpoint = tracingConfig(this.settings).endpoint;
    if (!endpoint) return done({ code: ExportResultCode.FAILED, error: new Error('No OTEL_EXPORTER_ENDPOINT.') });
    this.exporterFor(endpoint).export(spans, done);
  }

  async forceFlush(): Promise<void> {
    await Promise.all([this.current?.exporter.forceFlush(), ...this.retiring]);
  }

  async shutdown(): Promise<void> {
    const last = this.current;
    this.current = null;
    await Promise.all([last?.exporter.shutdown(), ...this.retiring]);
  }

  private exporterFor(endpoint: string): OTLPTraceExporter {
    if (this.current?.endpoint === endpoint) return this.current.exporter;
    if (this.current) {
      const retired = this.current.exporter.shutdown().catch(() => undefined);
      this.retiring.add(retired);
      void retired.finally(() => this.retiring.delete(retired));
    }
    this.current = { endpoint, exporter: new OTLPTraceExporter({ url: tracesUrl(endpoint), timeoutMillis: EXPORT_TIMEOUT_MS }) };
    return this.current.exporter;
  }
}
