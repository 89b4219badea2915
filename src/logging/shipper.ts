/**
 * Sends records of the enabled loggers (LOG_AGGREGATOR_*) to the log aggregator. Nothing here
 * blocks or fails its caller: `ship` puts a record in a bounded queue and returns; one sender drains
 * the queue in order, reconnecting with a growing pause when the aggregator is away, and a record
 * that finds the queue full is dropped and counted. Settings are read at each record, so a change
 * applies to the next one.
 */
import type { AggregatorLogger, LogLevel } from '../config/settings/categories/logging.ts';
import { formatRecord, LEVEL_RANK, type LogEntry } from './record.ts';
import { openTransport, type AggregatorTarget, type Transport } from './transports.ts';

export const QUEUE_LIMIT = 10_000;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

export interface LogShipper {
  /** Whether a record of this logger would be shipped now (so a source may skip building it). */
  wants(logger: AggregatorLogger, level?: LogLevel): boolean;
  ship(entry: LogEntry): void;
  /** LOG_AGGREGATOR_INDIVIDUAL_FACTS: one system_tracking record per fact. */
  factsIndividually(): boolean;
  /** Sends one record now, past the queue, with the stored settings or `overrides`; rejects with why it could not (the logging test endpoint). */
  sendNow(entry: LogEntry, overrides?: Record<string, unknown>): Promise<void>;
  /** Records dropped because the queue was full. */
  readonly dropped: number;
  readonly queued: number;
  close(): void;
}

type Read = (key: string) => unknown;

export function aggregatorTarget(read: Read): AggregatorTarget | null {
  const host = read('LOG_AGGREGATOR_HOST') as string | null;
  const protocol = read('LOG_AGGREGATOR_PROTOCOL') as AggregatorTarget['protocol'];
  const port = read('LOG_AGGREGATOR_PORT') as number | null;
  if (!host || (protocol !== 'https' && !port)) return null;
  return {
    protocol, host, port,
    type: read('LOG_AGGREGATOR_TYPE') as string | null,
    username: (read('LOG_AGGREGATOR_USERNAME') as string) ?? '',
    password: (read('LOG_AGGREGATOR_PASSWORD') as string) ?? '',
    timeoutMs: ((read('LOG_AGGREGATOR_TCP_TIMEOUT') as number) ?? 5) * 1000,
    verifyCert: read('LOG_AGGREGATOR_VERIFY_CERT') !== false,
  };
}

/** Whether `read`'s settings send records of `logger` at `level`: the level threshold applies to the service log only, as AWX's analytics loggers ignore it. */
export function wanted(read: Read, logger: AggregatorLogger, level: LogLevel = 'INFO'): boolean {
  if (read('LOG_AGGREGATOR_ENABLED') !== true) return false;
  if (!((read('LOG_AGGREGATOR_LOGGERS') as string[]) ?? []).includes(logger)) return false;
  return logger !== 'awx' || LEVEL_RANK[level] >= LEVEL_RANK[read('LOG_AGGREGATOR_LEVEL') as LogLevel];
}

const sameTarget = (a: AggregatorTarget, b: AggregatorTarget) => JSON.stringify(a) === JSON.stringify(b);

export function createLogShipper(settings: { get(key: string): unknown }, clusterHostId: string, onFailure: (message: string) => void = () => undefined): LogShipper {
  const read: Read = (key) => settings.get(key);
  const queue: string[] = [];
  let dropped = 0;
  let draining = false;
  let closed = false;
  let current: { target: AggregatorTarget; transport: Transport } | null = null;
  let lastFailureReport = 0;

  const format = (entry: LogEntry, from: Read) => JSON.stringify(formatRecord({
    type: from('LOG_AGGREGATOR_TYPE') as string | null,
    towerUuid: (from('LOG_AGGREGATOR_TOWER_UUID') as string) ?? '',
    clusterHostId,
  }, entry));

  const transportFor = (target: AggregatorTarget) => {
    if (current && sameTarget(current.target, target)) return current.transport;
    current?.transport.close();
    current = { target, transport: openTransport(target) };
    return current.transport;
  };

  const report = (message: string) => {
    // At most once a minute: an aggregator that is away would otherwise fill the log.
    if (Date.now() - lastFailureReport < 60_000) return;
    lastFailureReport = Date.now();
    onFailure(message);
  };

  const drain = async () => {
    if (draining) return;
    draining = true;
    let pause = RETRY_MIN_MS;
    try {
      while (queue.length && !closed) {
        const target = aggregatorTarget(read);
        if (read('LOG_AGGREGATOR_ENABLED') !== true || !target) {
          queue.length = 0;
          break;
        }
        try {
          await transportFor(target).send(queue[0]);
          queue.shift();
          pause = RETRY_MIN_MS;
        } catch (err) {
          report(`log aggregator ${target.host}: ${err instanceof Error ? err.message : err}; ${queue.length} record(s) waiting`);
          current?.transport.close();
          current = null;
          await new Promise((resolve) => setTimeout(resolve, pause).unref());
          pause = Math.min(pause * 2, RETRY_MAX_MS);
        }
      }
    } finally {
      draining = false;
    }
  };

  return {
    wants: (logger, level) => !closed && wanted(read, logger, level),
    ship(entry) {
      if (closed || !wanted(read, entry.logger, entry.level)) return;
      if (queue.length >= QUEUE_LIMIT) {
        dropped++;
        return;
      }
      queue.push(format(entry, read));
      void drain();
    },
    factsIndividually: () => read('LOG_AGGREGATOR_INDIVIDUAL_FACTS') === true,
    async sendNow(entry, overrides = {}) {
      const from: Read = (key) => (key in overrides ? overrides[key] : read(key));
      const target = aggregatorTarget(from);
      if (!target) throw new Error('The log aggregator host (and for TCP and UDP its port) is not set.');
      const transport = openTransport(target);
      try {
        await transport.send(format(entry, from));
      } finally {
        transport.close();
      }
    },
    get dropped() {
      return dropped;
    },
    get queued() {
      return queue.length;
    },
    close() {
      closed = true;
      queue.length = 0;
      current?.transport.close();
      current = null;
    },
  };
}
