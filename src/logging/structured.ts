/**
 * The service's own log: JSON lines from pino (the logger Fastify uses), each carrying the request
 * id of the request it belongs to and the trace and span ids of the active OpenTelemetry span.
 */
import { randomUUID } from 'node:crypto';
import { format } from 'node:util';
import type { IncomingMessage } from 'node:http';
import { trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { ServiceLogger } from '../api/logger.ts';
import type { LogShipper } from './shipper.ts';

export type RootLog = Logger;

/** The ids of the active span, when a tracer made one. */
export function traceFields(): Record<string, string> {
  const context = trace.getActiveSpan()?.spanContext();
  return context ? { trace_id: context.traceId, span_id: context.spanId } : {};
}

export function createRootLog(options: { level?: string; node?: string; destination?: DestinationStream } = {}): RootLog {
  return pino({
    level: options.level ?? 'info',
    base: { pid: process.pid, node: options.node },
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: traceFields,
  }, options.destination);
}

// A proxy's or client's request id is kept when it looks like one (no spaces or control characters, not too long).
const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** Fastify's genReqId: the request's X-Request-ID when it is sensible, else a new UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** The service logger (`services.logger`) over the root log: records of logger `awx`, also sent to the aggregator when it takes them. */
export function structuredServiceLogger(root: RootLog, shipper?: LogShipper): ServiceLogger {
  const log = root.child({ logger: 'awx' });
  const write = (level: 'info' | 'warn' | 'error', message: string, details: unknown[]) => {
    const text = details.length ? format(message, ...details) : message;
    log[level](text);
    shipper?.ship({ logger: 'awx', level: level === 'warn' ? 'WARNING' : level === 'error' ? 'ERROR' : 'INFO', message: text });
  };
  return {
    info: (message, ...details) => write('info', message, details),
    warn: (message, ...details) => write('warn', message, details),
    error: (message, ...details) => write('error', message, details),
  };
}
