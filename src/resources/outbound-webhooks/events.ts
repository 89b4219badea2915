/** The events outbound webhooks hear (docs/outbound-webhooks.md#events), and which status change of a run is which. */

export const EVENT_TYPES = [
  'job.started', 'job.succeeded', 'job.failed', 'job.canceled',
  'workflow.started', 'workflow.succeeded', 'workflow.failed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const PREFIXES: Record<string, string> = { job: 'job', workflow_job: 'workflow' };
const OUTCOMES: Record<string, string> = { running: 'started', successful: 'succeeded', failed: 'failed', error: 'failed', canceled: 'canceled' };

/**
 * The event a run's current status stands for: running is started, error counts as failed. Other kinds
 * of runs (updates, ad hoc commands...) have none, and workflows have no canceled event.
 */
export function eventOfRun(run: { kind: string; status: string }): EventType | null {
  const prefix = PREFIXES[run.kind];
  const outcome = OUTCOMES[run.status];
  if (!prefix || !outcome) return null;
  const event = `${prefix}.${outcome}`;
  return (EVENT_TYPES as readonly string[]).includes(event) ? (event as EventType) : null;
}

/** What a delivery says about the run (the `job` of the body, docs/outbound-webhooks.md#a-delivery). */
export interface RunSummary {
  id: number;
  name: string;
  status: string;
  type: string;
  started: string | null;
  finished: string | null;
  elapsed: number;
  launch_type: string;
  execution_node: string;
}

const isoOrNull = (value: unknown) => (value instanceof Date ? value.toISOString() : typeof value === 'string' && value ? value : null);

export function summarizeRun(run: {
  id: number; name: string; status: string; kind: string; started: unknown; finished: unknown; elapsed: number | string; launch_type: string; execution_node: string;
}): RunSummary {
  return {
    id: run.id,
    name: run.name,
    status: run.status,
    type: run.kind,
    started: isoOrNull(run.started),
    finished: isoOrNull(run.finished),
    elapsed: Number(run.elapsed) || 0,
    launch_type: run.launch_type,
    execution_node: run.execution_node ?? '',
  };
}

/** The body of a delivery, its keys in the documented order (a stored payload comes back from jsonb reordered). */
export function deliveryBody(payload: { event_type: string; timestamp: string; job: RunSummary }): string {
  const job = payload.job;
  return JSON.stringify({
    event_type: payload.event_type,
    timestamp: payload.timestamp,
    job: {
      id: job.id, name: job.name, status: job.status, type: job.type, started: job.started, finished: job.finished,
      elapsed: job.elapsed, launch_type: job.launch_type, execution_node: job.execution_node,
    },
  });
}
