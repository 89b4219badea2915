/**
 * What one node measures of itself, for GET /api/v2/metrics/ (docs/observability.md#metrics): a
 * prom-client registry per service (HTTP, launch and gate latency, event ingestion, the database
 * pool), beside one registry per process for prom-client's default metrics (event loop lag, memory,
 * CPU, garbage collection). Cluster-wide values are read from the database at scrape time
 * (metrics-cluster.ts), never kept here.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ServiceView } from '../api/context.ts';
import type { PoolStats } from '../db/database.ts';

declare module '../api/context.ts' {
  interface ServiceCaches {
    /** This node's measurements (src/telemetry/metrics.ts). */
    metrics: ServiceMetrics;
  }
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LAG_SECONDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly http = new Histogram({
    name: 'drover_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer sent, by route pattern, method and status code',
    labelNames: ['route', 'method', 'status_code'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly launch = new Histogram({
    name: 'drover_launch_duration_seconds',
    help: 'Time the launch service takes for one launch (plan, store, gates, queue), by run kind and outcome',
    labelNames: ['kind', 'outcome'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly gate = new Histogram({
    name: 'drover_gate_duration_seconds',
    help: 'Time one launch gate takes to answer, by gate and decision',
    labelNames: ['gate', 'decision'],
    buckets: SECONDS,
    registers: [this.registry],
  });
  readonly eventsStored = new Counter({
    name: 'drover_events_stored_total',
    help: "Events of ansible-runner's stream stored by this node",
    registers: [this.registry],
  });
  readonly eventLag = new Histogram({
    name: 'drover_event_lag_seconds',
    help: 'Time from an event being created by ansible-runner to its being stored',
    buckets: LAG_SECONDS,
    registers: [this.registry],
  });
  private readonly poolConnections = new Gauge({
    name: 'drover_db_pool_connections',
    help: 'Database connections of this node by state (in_use, idle); the embedded database has one',
    labelNames: ['state'],
    registers: [this.registry],
  });
  private readonly poolMax = new Gauge({ name: 'drover_db_pool_max', help: 'Most database connections this node opens', registers: [this.registry] });
  private readonly poolWaiting = new Gauge({
    name: 'drover_db_pool_waiting',
    help: "Statements waiting for a database connection (the embedded database's queue of statements and transactions waiting their turn)",
    registers: [this.registry],
  });

  private readonly statements = new Counter({
    name: 'drover_db_statements_total',
    help: 'Database statements this node sent (BEGIN and COMMIT included)',
    registers: [this.registry],
  });
  private statementsSeen = 0;

  /** Sets the pool gauges to the database's state now (at scrape time). */
  recordPool(stats: PoolStats): void {
    if (stats.statements > this.statementsSeen) this.statements.inc(stats.statements - this.statementsSeen);
    this.statementsSeen = stats.statements;
    this.poolConnections.set({ state: 'in_use' }, stats.inUse);
    this.poolConnections.set({ state: 'idle' }, stats.idle);
    this.poolMax.set(stats.max);
    this.poolWaiting.set(stats.waiting);
  }

  /** Counts events stored now and how late each is (`created`: ISO 8601 times from ansible-runner). */
  recordEventsStored(created: readonly string[]): void {
    if (!created.length) return;
    this.eventsStored.inc(created.length);
    const now = Date.now();
    for (const at of created) {
      const time = Date.parse(at);
      if (Number.isFinite(time)) this.eventLag.observe(Math.max(0, (now - time) / 1000));
    }
  }
}

/** The metrics of the service a request or a run reached; none for a service composed without them. */
export const metricsOf = (service: ServiceView | undefined): ServiceMetrics | undefined => service?.caches.metrics;

/** Runs one launch, observing how long it took and whether it was launched or refused (or failed). */
export async function timedLaunch<T extends { ok: boolean }>(service: ServiceView, kind: string, launch: () => Promise<T>): Promise<T> {
  const metrics = metricsOf(service);
  if (!metrics) return launch();
  const end = metrics.launch.startTimer({ kind });
  try {
    const result = await launch();
    end({ outcome: result.ok ? 'launched' : 'refused' });
    return result;
  } catch (err) {
    end({ outcome: 'error' });
    throw err;
  }
}

/** Runs one gate's check, observing how long it took and what it decided. */
export async function timedGate<T extends { decision: string }>(service: ServiceView, gate: string, check: () => Promise<T>): Promise<T> {
  const metrics = metricsOf(service);
  if (!metrics) return check();
  const end = metrics.gate.startTimer({ gate });
  try {
    const verdict = await check();
    end({ decision: verdict.decision });
    return verdict;
  } catch (err) {
    end({ decision: 'error' });
    throw err;
  }
}

let processMetrics: Registry | undefined;

/**
 * prom-client's default metrics (nodejs_eventloop_lag_*, process_*, nodejs_heap_*...): they measure
 * the process, so there is one registry of them per process, made at its first use.
 */
export function processRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}
