import type { UnifiedJobEventRow } from '../db/tables.ts';
import { commandEventDisplay, eventLevel, playbookEventDisplay } from './event-types.ts';

/** Event groups a client may join, with the run kind whose events each carries (AWX's names). */
const EVENT_GROUP_KINDS: Record<string, string> = {
  job_events: 'job',
  project_update_events: 'project_update',
  inventory_update_events: 'inventory_update',
  ad_hoc_command_events: 'ad_hoc_command',
  system_job_events: 'system_job',
  workflow_events: 'workflow_job',
};
const GROUP_OF_KIND = Object.fromEntries(Object.entries(EVENT_GROUP_KINDS).map(([group, kind]) => [kind, group]));

export const kindOfEventGroup = (group: string): string | undefined => (Object.hasOwn(EVENT_GROUP_KINDS, group) ? EVENT_GROUP_KINDS[group] : undefined);
export const eventGroupOfKind = (kind: string): string => GROUP_OF_KIND[kind] ?? `${kind}_events`;

const iso = (value: unknown) => new Date(value as string).toISOString();

/** Where a run's events are listed through the REST API. */
export const eventsUrl = (kind: string, id: number) => `/api/v2/${kind}s/${id}/${kind === 'job' ? 'job_events' : 'events'}/`;

/** A stored event as pushed: the fields of the REST event list, plus AWX's group_name. */
export function eventMessage(kind: string, row: UnifiedJobEventRow): Record<string, unknown> {
  return {
    id: Number(row.id),
    type: `${kind}_event`,
    [kind]: row.unified_job_id,
    group_name: eventGroupOfKind(kind),
    created: iso(row.created),
    modified: iso(row.modified),
    event: row.event,
    event_display: kind === 'job' || kind === 'project_update' ? playbookEventDisplay(row as { event: string }) : commandEventDisplay(row.event),
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
export const eofMessage = (kind: string, id: number, finalCounter: number) => ({
  event: 'EOF',
  final_counter: finalCounter,
  group_name: eventGroupOfKind(kind),
  [kind]: id,
  unified_job_id: id,
});

/** AWX's jobs-summary message, sent when a run's event processing is finished. */
export const summaryMessage = (id: number, finalCounter: number) => ({ group_name: 'jobs', unified_job_id: id, final_counter: finalCounter });

/** Tells a client that events beyond its rate were not sent, and where to read them. */
export const skippedMessage = (kind: string, id: number, skipped: { count: number; first: number; last: number }) => ({
  event: 'events_skipped',
  group_name: eventGroupOfKind(kind),
  [kind]: id,
  unified_job_id: id,
  skipped: skipped.count,
  first_counter: skipped.first,
  last_counter: skipped.last,
  url: `${eventsUrl(kind, id)}?counter__gte=${skipped.first}&counter__lte=${skipped.last}`,
});
