/**
 * The traces of one service (docs/observability.md): OpenTelemetry's SDK (a BasicTracerProvider with
 * a batch processor and the OTLP/HTTP exporter), configured by the OTEL_* settings as they are at
 * each span. With OTEL_ENABLED off nothing is made: a span site costs one settings read.
 *
 * The active span follows the code through an AsyncLocalStorage of this module, not OpenTelemetry's
 * global context manager: two services of one process (the tests') keep their providers apart.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type SpanContext, type Tracer } from '@opentelemetry/api';
import { parseTraceParent } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { tracingConfig, type SettingsReader, type TracingConfig } from './tracing-config.ts';
import { SettingsExporter, SettingsSampler } from './tracing-export.ts';

export type { SettingsReader, TracingConfig } from './tracing-config.ts';

export type SpanAttributes = Record<string, string | number | boolean | null | undefined>;

/** A span being recorded (or a no-op one when tracing is off). */
export interface TracedSpan {
  set(attributes: SpanAttributes): void;
  /** Marks the span failed, with the error recorded as an exception event. */
  fail(error: unknown): void;
  end(): void;
  /** Its W3C traceparent (`00-<trace id>-<span id>-<flags>`); '' for the no-op span. */
  readonly traceparent: string;
}

export interface SpanOptions {
  /** A new trace (a background loop's round), whatever span is active. */
  root?: boolean;
  /** A W3C traceparent to continue (an incoming request's header, a run's launch); ignored when malformed. */
  parent?: string | null;
  kind?: 'server' | 'internal';
}

const active = new AsyncLocalStorage<{ context: Context; span: TracedSpan }>();

const NO_SPAN: TracedSpan = { set() {}, fail() {}, end() {}, traceparent: '' };

/** The W3C traceparent of a span context. */
export const traceparentOf = (context: SpanContext): string =>
  `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;

/** The trace id of a W3C traceparent, null when it is none. */
export const traceIdOf = (traceparent: string | null | undefined): string | null => (traceparent ? parseTraceParent(traceparent)?.traceId ?? null : null);

const defined = (attributes: SpanAttributes) =>
  Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined && v !== null)) as Record<string, string | number | boolean>;

function wrapped(span: Span): TracedSpan {
  let ended = false;
  return {
    set: (attributes) => void span.setAttributes(defined(attributes)),
    fail: (error) => {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof Error) span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
    },
    end: () => {
      if (ended) return;
      ended = true;
      span.end();
    },
    traceparent: traceparentOf(span.spanContext()),
  };
}

export class Tracing {
  private provider: { serviceName: string; provider: BasicTracerProvider; tracer: Tracer } | null = null;
  private readonly exporter: SettingsExporter;
  private readonly sampler: SettingsSampler;
  private readonly retiring = new Set<Promise<void>>();
  private readonly spans = new WeakMap<TracedSpan, Span>();

  constructor(private readonly settings: SettingsReader, private readonly version = '') {
    this.exporter = new SettingsExporter(settings);
    this.sampler = new SettingsSampler(settings);
  }

  /** The OTEL_* settings in force. */
  config(): TracingConfig {
    return tracingConfig(this.settings);
  }

  get enabled(): boolean {
    return this.settings.get('OTEL_ENABLED') === true;
  }

  /**
   * Starts a span, a child of the active one unless `options` say otherwise; the caller ends it.
   * A no-op span when tracing is off.
   */
  start(name: string, attributes: SpanAttributes = {}, options: SpanOptions = {}): TracedSpan {
    if (!this.enabled) return NO_SPAN;
    const parent = options.parent ? parseTraceParent(options.parent) : null;
    const base = parent ? trace.setSpanContext(ROOT_CONTEXT, { ...parent, isRemote: true }) : options.root || options.parent !== undefined ? ROOT_CONTEXT : active.getStore()?.context ?? ROOT_CONTEXT;
    const span = this.tracer().startSpan(name, { attributes: defined(attributes), kind: options.kind === 'server' ? SpanKind.SERVER : SpanKind.INTERNAL }, base);
    const traced = wrapped(span);
    this.spans.set(traced, span);
    return traced;
  }

  /** Runs `fn` with `span` as the active span: spans `fn` starts are its children. */
  within<T>(span: TracedSpan, fn: () => T): T {
    if (span === NO_SPAN) return fn();
    const otel = this.spanOf(span);
    return otel ? active.run({ context: trace.setSpan(ROOT_CONTEXT, otel), span }, fn) : fn();
  }

  /** Runs `fn` in a span of its own, ended when `fn` settles (failed when it throws). */
  async inSpan<T>(name: string, attributes: SpanAttributes, fn: (span: TracedSpan) => Promise<T>, options: SpanOptions = {}): Promise<T> {
    if (!this.enabled) return fn(NO_SPAN);
    const span = this.start(name, attributes, options);
    try {
      return await this.within(span, () => fn(span));
    } catch (err) {
      span.fail(err);
      throw err;
    } finally {
      span.end();
    }
  }

  /** The traceparent of the active span, '' when there is none (or tracing is off). */
  activeTraceparent(): string {
    if (!this.enabled) return '';
    return active.getStore()?.span.traceparent ?? '';
  }

  /** Exports every span ended so far (tests assert after it instead of waiting). */
  async flush(): Promise<void> {
    await Promise.all([this.provider?.provider.forceFlush(), ...this.retiring]);
    await this.exporter.forceFlush();
  }

  /** Exports what is left and stops (the app closing). */
  async shutdown(): Promise<void> {
    const last = this.provider;
    this.provider = null;
    await Promise.all([last?.provider.shutdown(), ...this.retiring]);
    await this.exporter.shutdown();
  }

  private spanOf(span: TracedSpan): Span | undefined {
    return this.spans.get(span);
  }

  /** The tracer of the provider for OTEL_SERVICE_NAME (a resource attribute, so a new name makes a new provider). */
  private tracer(): Tracer {
    const serviceName = String(this.settings.get('OTEL_SERVICE_NAME'));
    if (this.provider?.serviceName === serviceName) return this.provider.tracer;
    if (this.provider) {
      // Spans it holds are exported; those still open when it shuts down are dropped.
      const retired = this.provider.provider.shutdown().catch(() => undefined);
      this.retiring.add(retired);
      void retired.finally(() => this.retiring.delete(retired));
    }
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName, ...(this.version && { [ATTR_SERVICE_VERSION]: this.version }) }),
      sampler: this.sampler,
      // The exporter outlives the provider: a provider shut down only flushes it.
      spanProcessors: [new BatchSpanProcessor({
        export: (spans, done) => this.exporter.export(spans, done),
        forceFlush: () => this.exporter.forceFlush(),
        shutdown: () => this.exporter.forceFlush(),
      })],
    });
    this.provider = { serviceName, provider, tracer: provider.getTracer('drover', this.version || undefined) };
    return this.provider.tracer;
  }
}
