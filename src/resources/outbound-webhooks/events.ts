/** The events outbound webhooks hear (docs/outbound-webhooks.md#events), and which status change of a run is which. */
import type { WebhookEvents, WebhookOutcome } from '../../runs/run-kind.ts';

const OUTCOMES: Record<string, WebhookOutcome> = { running: 'started', successful: 'succeeded', failed: 'failed', error: 'failed', canceled: 'canceled' };

/**
 * The event a run's current status stands for, among those of its kind (`events`, its webhookEvents):
 * running is started, error counts as failed. Kinds without events (updates, ad hoc commands...) have none.
 */
export function eventOfRun(run: { status: string }, events: WebhookEvents | undefined): string | null {
  const outcome = OUTCOMES[run.status];
  if (!events || !outcome || !events.outcomes.includes(outcome)) return null;
  return `${events.prefix}.${outcome}`;
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
