import type { UnifiedJobEventRow } from '../db/tables.ts';
import { commandEventDisplay, eventLevel, playbookEventDisplay } from './event-types.ts';

/**
 * The events of one run kind as live output pushes them: a run kind's event facet, which the
 * service's run kinds give (services.runKinds.eventStream).
 */
export interface EventStream {
  /** The run kind (unified_jobs.kind). */
  kind: string;
  /** The group a client joins to follow a run's events (AWX's names: job_events, workflow_events...). */
  group: string;
  /** Playbook events (labelled with play and task) or command events. */
  playbook: boolean;
  /** Where a run's events are listed through the REST API, after the run's own path (events, job_events). */
  eventsPath: string;
}

const iso = (value: unknown) => new Date(value as string).toISOString();

/** Where a run's events are listed through the REST API. */
export const eventsUrl = (stream: EventStream, id: number) => `/api/v2/${stream.kind}s/${id}/${stream.eventsPath}/`;

/** A stored event as pushed: the fields of the REST event list, plus AWX's group_name. */
export function eventMessage(stream: EventStream, row: UnifiedJobEventRow): Record<string, unknown> {
  const { kind } = stream;
  return {
    id: Number(row.id),
    type: `${kind}_event`,
    [kind]: row.unified_job_id,
    group_name: stream.group,
    created: iso(row.created),
    modified: iso(row.modified),
    event: row.event,
    event_display: stream.playbook ? playbookEventDisplay(row as { event: string }) : commandEventDisplay(row.event),
    event_level: eventLevel(row.event),
    counter: row.counter,
    uuid: row.uuid,
    parent_uuid: row.parent_uuid,
    event_data: row.event_data,
    stdout: row.stdout,
    start_line: row.start_line,
    end_line: row.end_line,
    verbosity: row.verbosity,
    host: row.host_id,
    host_name: row.host_name,
    playbook: row.playbook,
    play: row.play,
    task: row.task,
    role: row.role,
    changed: row.changed,
    failed: row.failed,
  };
}

/** AWX's status_changed message. */
export function statusMessage(notice: { id: number; kind: string; status: string; template: number | null; finished: string | null }) {
  return {
    unified_job_id: notice.id,
    status: notice.status,
    type: notice.kind,
    group_name: 'jobs',
    ...(notice.template !== null && { unified_job_template_id: notice.template }),
    ...(notice.finished && ['successful', 'failed', 'error', 'canceled'].includes(notice.status) && { finished: notice.finished }),
  };
}

/** The last message of a run's event group: every event is stored. */
export const eofMessage = (stream: EventStream, id: number, finalCounter: number) => ({
  event: 'EOF',
  final_counter: finalCounter,
  group_name: stream.group,
  [stream.kind]: id,
  unified_job_id: id,
});

/** AWX's jobs-summary message, sent when a run's event processing is finished. */
export const summaryMessage = (id: number, finalCounter: number) => ({ group_name: 'jobs', unified_job_id: id, final_counter: finalCounter });

/** Tells a client that events beyond its rate were not sent, and where to read them. */
export const skippedMessage = (stream: EventStream, id: number, skipped: { count: number; first: number; last: number }) => ({
  event: 'events_skipped',
  group_name: stream.group,
  [stream.kind]: id,
  unified_job_id: id,
  skipped: skipped.count,
  first_counter: skipped.first,
  last_counter: skipped.last,
  url: `${eventsUrl(stream, id)}?counter__gte=${skipped.first}&counter__lte=${skipped.last}`,
});
