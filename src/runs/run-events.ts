import type { Queryable, Row } from '../db/database.ts';
import type { HostRow, UnifiedJobRow } from '../db/tables.ts';
import { commandEventDisplay, eventLevel, playbookEventDisplay } from '../live/event-types.ts';

/** How AWX shows the events of one run kind (JobEventSerializer, ProjectUpdateEventSerializer...): a run kind's `events`. */
export interface EventShape {
  /** Where one event is read on its own, when AWX has such a route. */
  detailPath?: string;
  /** The fields after id, type, url, related, summary_fields, created and modified, in AWX's order. */
  fields: readonly string[];
  /** Playbook events (labels with play and task, levels) or command events. */
  playbook: boolean;
  /** Related and summarized host. */
  host: boolean;
  /** The children/ of each event (under detailPath) and the run's children_summary/ (job events). */
  children: boolean;
  /** The run summarized in each event's summary_fields, under the kind's name: true for its own columns, or how to summarize it. */
  summary?: true | ((db: Queryable, run: EventRun) => Promise<Row>);
  /** Values every event shows whatever was stored (an inventory update's are all verbose). */
  fixed?: Readonly<Record<string, unknown>>;
}

/** The events of a kind that says nothing of them (system jobs, workflow jobs): command events named after the kind (AWX's SystemJobEventSerializer). */
export const commandEvents = (kind: string): EventShape => ({
  fields: ['event', 'counter', 'event_display', 'event_data', 'failed', 'changed', 'uuid', 'stdout', 'start_line', 'end_line', 'verbosity', kind],
  playbook: false,
  host: false,
  children: false,
});

/** The run an event list or event belongs to, as its events summarize it. */
export type EventRun = Pick<UnifiedJobRow, 'id' | 'kind' | 'name' | 'description' | 'status' | 'failed' | 'elapsed' | 'job_template_id'> & { canceled_on?: Date | null };

/** How events summarize their run by its own columns. */
export const runSummary = (run: EventRun): Row => ({ id: run.id, name: run.name, description: run.description ?? '', status: run.status, failed: run.failed });

/** A host as an event summarizes it. */
type EventHost = Pick<HostRow, 'id' | 'name' | 'description'>;

/** The events' hosts (id, name, description), read once for a page. */
async function loadHosts(db: Queryable, events: readonly Row[]): Promise<Map<number, EventHost>> {
  const ids = [...new Set(events.map((e) => e.host).filter((id): id is number => typeof id === 'number'))];
  if (!ids.length) return new Map();
  const rows = await db.query<EventHost>('SELECT id, name, description FROM hosts WHERE id = ANY($1::integer[])', [ids]);
  return new Map(rows.map((h) => [h.id, h]));
}

/**
 * Events of one run as AWX serves them: each with its url, related links, summary_fields, display
 * label and level, in the field order of its kind's `shape`. `events` are the rows of the unified_job_event
 * resource as serialized (host is the host's id). Stdout over `limit` characters (EVENT_STDOUT_MAX_BYTES_DISPLAY) is cut unless
 * `full` (?no_truncate, the detail routes); a playbook's playbook_on_* events are never cut.
 */
export async function presentEvents(
  db: Queryable, shape: EventShape, run: EventRun, events: readonly Row[], options: { full: boolean; limit: number },
): Promise<Row[]> {
  const [hosts, summary] = await Promise.all([
    shape.host ? loadHosts(db, events) : new Map<number, EventHost>(),
    typeof shape.summary === 'function' ? shape.summary(db, run) : runSummary(run),
  ]);
  const runUrl = `/api/v2/${run.kind}s/${run.id}/`;
  return events.map((event) => {
    const host = shape.host && typeof event.host === 'number' ? hosts.get(event.host) : undefined;
    const related: Record<string, string> = { [run.kind]: runUrl };
    if (shape.children) related.children = `${shape.detailPath}${event.id}/children/`;
    if (host) related.host = `/api/v2/hosts/${host.id}/`;
    const summaryFields: Row = {};
    if (shape.summary) summaryFields[run.kind] = summary;
    if (host) summaryFields.host = { id: host.id, name: host.name, description: host.description };
    if (shape.playbook) summaryFields.role = {};
    const computed: Row = {
      [run.kind]: run.id,
      event: event.event,
      event_display: shape.playbook ? playbookEventDisplay(event as { event: string }) : commandEventDisplay(String(event.event)),
      event_level: eventLevel(String(event.event)),
      host: host ? host.id : null,
      host_name: event.host_name,
      failed: event.failed,
      changed: event.changed,
      stdout: options.full || (shape.playbook && String(event.event).startsWith('playbook_on')) ? event.stdout : String(event.stdout).slice(0, options.limit),
      ...shape.fixed,
    };
    const out: Row = {
      id: Number(event.id),
      type: `${run.kind}_event`,
      url: shape.detailPath ? `${shape.detailPath}${event.id}/` : '',
      related,
      summary_fields: summaryFields,
      created: event.created,
      modified: event.modified,
    };
    for (const name of shape.fields) out[name] = Object.hasOwn(computed, name) ? computed[name] : event[name];
    return out;
  });
}
