import type { Queryable } from '../db/database.ts';
import { commandEventDisplay, eventLevel, playbookEventDisplay } from '../live/event-types.ts';

// Rows here are still read untyped (docs/architecture.md, "Typed rows").
type AnyRow = any;

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
  summary?: true | ((db: Queryable, run: EventRun) => Promise<AnyRow>);
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
export type EventRun = Pick<AnyRow, 'id' | 'kind' | 'name' | 'description' | 'status' | 'failed' | 'elapsed' | 'job_template_id' | 'canceled_on'>;

/** How events summarize their run by its own columns. */
export const runSummary = (run: EventRun): AnyRow => ({ id: run.id, name: run.name, description: run.description ?? '', status: run.status, failed: run.failed });

/** The events' hosts (id, name, description), read once for a page. */
async function loadHosts(db: Queryable, events: readonly AnyRow[]): Promise<Map<number, AnyRow>> {
  const ids = [...new Set(events.map((e) => e.host).filter((id): id is number => typeof id === 'number'))];
  if (!ids.length) return new Map();
  const rows = await db.query<AnyRow>('SELECT id, name, description FROM hosts WHERE id = ANY($1::integer[])', [ids]);
  return new Map(rows.map((h) => [h.id, h]));
}

/**
 * Events of one run as AWX serves them: each with its url, related links, summary_fields, display
 * label and level, in the field order of its kind's `shape`. `events` are the rows of the unified_job_event
 * resource as serialized (host is the host's id). Stdout over `limit` characters (EVENT_STDOUT_MAX_BYTES_DISPLAY) is cut unless
 * `full` (?no_truncate, the detail routes); a playbook's playbook_on_* events are never cut.
 */
export async function presentEvents(
  db: Queryable, shape: EventShape, run: EventRun, events: readonly AnyRow[], options: { full: boolean; limit: number },
): Promise<AnyRow[]> {
  const [hosts, summary] = await Promise.all([
    shape.host ? loadHosts(db, events) : new Map<number, AnyRow>(),
    typeof shape.summary === 'function' ? shape.summary(db, run) : runSummary(run),
  ]);
  const runUrl = `/api/v2/${run.kind}s/${run.id}/`;
  return events.map((event) => {
    const host = shape.host && typeof event.host === 'number' ? hosts.get(event.host) : undefined;
    const related: Record<string, string> = { [run.kind]: runUrl };
    if (shape.children) related.children = `${shape.detailPath}${event.id}/children/`;
    if (host) related.host = `/api/v2/hosts/${host.id}/`;
    const summaryFields: AnyRow = {};
    if (shape.summary) summaryFields[run.kind] = summary;
    if (host) summaryFields.host = { id: host.id, name: host.name, description: host.description };
    if (shape.playbook) summaryFields.role = {};
    const computed: AnyRow = {
      [run.kind]: run.id,
      event: event.event,
      event_display: shape.playbook ? playbookEventDisplay(event as { event: string }) : commandEventDisplay(event.event),
      event_level: eventLevel(event.event),
      host: host ? host.id : null,
      host_name: event.host_name,
      failed: event.failed,
      changed: event.changed,
      stdout: options.full || (shape.playbook && String(event.event).startsWith('playbook_on')) ? event.stdout : String(event.stdout).slice(0, options.limit),
      ...shape.fixed,
    };
    const out: AnyRow = {
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
