import type { Queryable } from '../db/database.ts';
import { commandEventDisplay, eventLevel, playbookEventDisplay } from '../live/event-types.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** How AWX shows the events of one run kind (JobEventSerializer, ProjectUpdateEventSerializer...). */
interface EventShape {
  /** Where one event is read on its own, when AWX has such a route. */
  detailPath?: string;
  /** The fields after id, type, url, related, summary_fields, created and modified, in AWX's order. */
  fields: readonly string[];
  /** Playbook events (labels with play and task, levels, children) or command events. */
  playbook: boolean;
  /** Related and summarized host, related children. */
  host: boolean;
  children: boolean;
}

const SHAPES: Record<string, EventShape> = {
  job: {
    detailPath: '/api/v2/job_events/',
    fields: ['job', 'event', 'counter', 'event_display', 'event_data', 'event_level', 'failed', 'changed', 'uuid', 'parent_uuid', 'host', 'host_name',
      'playbook', 'play', 'task', 'role', 'stdout', 'start_line', 'end_line', 'verbosity'],
    playbook: true,
    host: true,
    children: true,
  },
  project_update: {
    fields: ['event', 'counter', 'event_display', 'event_data', 'event_level', 'failed', 'changed', 'uuid', 'host_name',
      'playbook', 'play', 'task', 'role', 'stdout', 'start_line', 'end_line', 'verbosity', 'project_update'],
    playbook: true,
    host: false,
    children: false,
  },
  ad_hoc_command: {
    detailPath: '/api/v2/ad_hoc_command_events/',
    fields: ['ad_hoc_command', 'event', 'counter', 'event_display', 'event_data', 'failed', 'changed', 'uuid', 'host', 'host_name',
      'stdout', 'start_line', 'end_line', 'verbosity'],
    playbook: false,
    host: true,
    children: false,
  },
  inventory_update: {
    fields: ['event', 'counter', 'event_display', 'event_data', 'failed', 'changed', 'uuid', 'stdout', 'start_line', 'end_line', 'verbosity', 'inventory_update'],
    playbook: false,
    host: false,
    children: false,
  },
};

const shapeOf = (kind: string): EventShape => SHAPES[kind] ?? SHAPES.inventory_update;

/** The route of one event of this kind (/api/v2/job_events/), or undefined when AWX has none. */
export const eventDetailPath = (kind: string): string | undefined => SHAPES[kind]?.detailPath;

/** The run an event list or event belongs to, as its events summarize it. */
export type EventRun = Pick<AnyRow, 'id' | 'kind' | 'name' | 'description' | 'status' | 'failed' | 'elapsed' | 'job_template_id' | 'canceled_on'>;

/** The events' hosts (id, name, description), read once for a page. */
async function loadHosts(db: Queryable, events: readonly AnyRow[]): Promise<Map<number, AnyRow>> {
  const ids = [...new Set(events.map((e) => e.host).filter((id): id is number => typeof id === 'number'))];
  if (!ids.length) return new Map();
  const rows = await db.query<AnyRow>('SELECT id, name, description FROM hosts WHERE id = ANY($1::integer[])', [ids]);
  return new Map(rows.map((h) => [h.id, h]));
}

/** How events summarize their run: a job with its template, other kinds by their own columns. */
async function runSummary(db: Queryable, run: EventRun): Promise<AnyRow> {
  const base: AnyRow = { id: run.id, name: run.name, description: run.description ?? '', status: run.status, failed: run.failed };
  if (run.kind !== 'job') return base;
  Object.assign(base, { elapsed: run.elapsed === null || run.elapsed === undefined ? 0 : Number(run.elapsed), type: 'job' });
  if (run.canceled_on) base.canceled_on = run.canceled_on;
  if (run.job_template_id) {
    const [template] = await db.query<{ id: number; name: string }>('SELECT id, name FROM job_templates WHERE id = $1', [run.job_template_id]);
    if (template) Object.assign(base, { job_template_id: template.id, job_template_name: template.name });
  }
  return base;
}

/**
 * Events of one run as AWX serves them: each with its url, related links, summary_fields, display
 * label and level, in the field order of its kind. `events` are the rows of the unified_job_event
 * resource as serialized (host is the host's id). Stdout over `limit` characters (EVENT_STDOUT_MAX_BYTES_DISPLAY) is cut unless
 * `full` (?no_truncate, the detail routes); a job's playbook_on_* events are never cut.
 */
export async function presentEvents(db: Queryable, run: EventRun, events: readonly AnyRow[], options: { full: boolean; limit: number }): Promise<AnyRow[]> {
  const shape = shapeOf(run.kind);
  const [hosts, summary] = await Promise.all([shape.host ? loadHosts(db, events) : new Map<number, AnyRow>(), runSummary(db, run)]);
  const runUrl = `/api/v2/${run.kind}s/${run.id}/`;
  return events.map((event) => {
    const host = shape.host && typeof event.host === 'number' ? hosts.get(event.host) : undefined;
    const related: Record<string, string> = { [run.kind]: runUrl };
    if (shape.children) related.children = `${shape.detailPath}${event.id}/children/`;
    if (host) related.host = `/api/v2/hosts/${host.id}/`;
    const summaryFields: AnyRow = {};
    if (run.kind === 'job' || run.kind === 'project_update') summaryFields[run.kind] = summary;
    if (host) summaryFields.host = { id: host.id, name: host.name, description: host.description };
    if (shape.playbook) summaryFields.role = {};
    const computed: AnyRow = {
      [run.kind]: run.id,
      event: run.kind === 'inventory_update' ? 'verbose' : event.event,
      event_display: shape.playbook ? playbookEventDisplay(event as { event: string }) : run.kind === 'inventory_update' ? 'verbose' : commandEventDisplay(event.event),
      event_level: eventLevel(event.event),
      host: host ? host.id : null,
      host_name: run.kind === 'project_update' ? 'localhost' : event.host_name,
      failed: run.kind === 'inventory_update' ? false : event.failed,
      changed: run.kind === 'inventory_update' ? false : event.changed,
      stdout: options.full || (shape.playbook && String(event.event).startsWith('playbook_on')) ? event.stdout : String(event.stdout).slice(0, options.limit),
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
