import type { Queryable } from '../db/database.ts';
import type { Tracing } from '../telemetry/tracing.ts';
import { replaceNulDeep } from '../db/nul.ts';
import { scrub } from '../runs/exec.ts';
import { publishEvents } from '../live/notices.ts';

/** One event as ansible-runner prints it (run --json, or the worker stream). */
export interface RunnerEvent {
  uuid?: string;
  parent_uuid?: string;
  counter: number;
  event: string;
  stdout?: string;
  start_line?: number;
  end_line?: number;
  verbosity?: number;
  created?: string;
  event_data?: Record<string, any>;
}

const FAILED_EVENTS = new Set(['runner_on_failed', 'runner_on_unreachable', 'runner_item_on_failed', 'runner_on_async_failed']);
const CHANGED_EVENTS = new Set(['runner_on_ok', 'runner_item_on_ok', 'runner_on_async_ok']);
const FLUSH_AT = 1_000;
const FLUSH_EVERY_MS = 100;

/** The stored row of an event: the columns AWX's job events have. */
export function eventRow(event: RunnerEvent, offset: { counter: number; line: number }, hostIds: ReadonlyMap<string, number>) {
  const data = event.event_data ?? {};
  const host = typeof data.host === 'string' ? data.host : '';
  return {
    counter: event.counter + offset.counter,
    uuid: event.uuid ?? '',
    parent_uuid: event.parent_uuid ?? '',
    event: event.event,
    event_data: data,
    stdout: event.stdout ?? '',
    start_line: (event.start_line ?? 0) + offset.line,
    end_line: (event.end_line ?? 0) + offset.line,
    verbosity: event.verbosity ?? 0,
    host_id: hostIds.get(host) ?? null,
    host_name: host,
    playbook: data.playbook ?? '',
    play: data.play ?? '',
    task: data.task ?? '',
    role: data.role ?? '',
    changed: CHANGED_EVENTS.has(event.event) && data.res?.changed === true,
    failed: FAILED_EVENTS.has(event.event) && !data.ignore_errors,
    created: event.created ? `${event.created}${/[zZ]|[+-]\d\d:?\d\d$/.test(event.created) ? '' : 'Z'}` : new Date().toISOString(),
  };
}

/** Stores rows of events in one statement, however many there are. */
export async function insertEventRows(db: Queryable, jobId: number, rows: ReturnType<typeof eventRow>[]): Promise<void> {
  if (!rows.length) return;
  await db.query(
    `INSERT INTO unified_job_events (unified_job_id, counter, uuid, parent_uuid, event, event_data, stdout, start_line, end_line, verbosity,
       host_id, host_name, playbook, play, task, role, changed, failed, created)
     SELECT $1, e.counter, e.uuid, e.parent_uuid, e.event, e.event_data, e.stdout, e.start_line, e.end_line, e.verbosity,
       e.host_id, e.host_name, e.playbook, e.play, e.task, e.role, e.changed, e.failed, e.created
     FROM jsonb_to_recordset($2::jsonb) AS e(counter integer, uuid text, parent_uuid text, event text, event_data jsonb, stdout text,
       start_line integer, end_line integer, verbosity integer, host_id integer, host_name text, playbook text, play text, task text,
       role text, changed boolean, failed boolean, created timestamptz)
     ON CONFLICT (unified_job_id, counter) DO NOTHING`,
    [jobId, JSON.stringify(rows)],
  );
  await publishEvents(db, jobId, rows.map((r) => r.counter));
}

/**
 * Takes a run's events as they arrive and stores them in batches (every FLUSH_EVERY_MS, or at
 * FLUSH_AT events), with secrets scrubbed from their output and data. Keeps the playbook's stats.
 */
export class EventIngester {
  private pending: ReturnType<typeof eventRow>[] = [];
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  stats: Record<string, Record<string, number>> | null = null;
  lastCounter = 0;
  lastLine = 0;

  constructor(
    private readonly db: Queryable,
    private readonly jobId: number,
    private readonly hostIds: ReadonlyMap<string, number>,
    private readonly secrets: readonly string[],
    private readonly offset: { counter: number; line: number },
    /** Told each batch once stored: the metrics of stored events and the job_events logger of the log aggregator. */
    private readonly stored?: (rows: ReturnType<typeof eventRow>[]) => void,
    /** Each batch stored is a span, a child of the run's. */
    private readonly tracing?: Tracing,
  ) {}

  /** One line of ansible-runner's JSON output; anything else is ignored. */
  addLine(line: string): void {
    if (!line.startsWith('{')) return;
    let event: RunnerEvent;
    try {
      event = JSON.parse(this.secrets.length ? scrubJson(line, this.secrets) : line);
    } catch {
      return;
    }
    if (typeof event.counter !== 'number' || typeof event.event !== 'string') return;
    // A playbook may print NUL characters, which text and jsonb columns cannot hold: they become
    // U+FFFD. JSON always writes one as \u0000, so only lines holding that text need the walk.
    this.add(line.includes('\\u0000') ? replaceNulDeep(event) : event);
  }

  add(event: RunnerEvent): void {
    const row = eventRow(event, this.offset, this.hostIds);
    if (event.event === 'playbook_on_stats') this.stats = event.event_data as Record<string, Record<string, number>>;
    this.lastCounter = Math.max(this.lastCounter, row.counter);
    this.lastLine = Math.max(this.lastLine, row.end_line);
    this.pending.push(row);
    // A failed batch is kept in `failure` and reported by the run's final flush.
    if (this.pending.length >= FLUSH_AT) void this.flush().catch(() => undefined);
    else if (!this.timer) this.timer = setTimeout(() => void this.flush().catch(() => undefined), FLUSH_EVERY_MS);
  }

  /** Stores what is pending; rejects if any batch failed. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    const store = () => insertEventRows(this.db, this.jobId, batch);
    const traced = () => (this.tracing && batch.length ? this.tracing.inSpan('event batch', { 'drover.job.id': this.jobId, 'drover.events.count': batch.length }, store) : store());
    this.chain = this.chain.then(traced).then(() => this.stored?.(batch)).catch((err) => {
      this.failure ??= err;
    });
    await this.chain;
    if (this.failure) throw this.failure;
  }
}

/** Replaces secrets inside a JSON line, keeping it valid JSON. */
function scrubJson(line: string, secrets: readonly string[]): string {
  return scrub(line, secrets.flatMap((s) => [s, JSON.stringify(s).slice(1, -1)]));
}
