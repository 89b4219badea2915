import { http, type Page } from '../../api/client';
import { isIgnoredFailure } from './event-outcome';
import { CHUNK_LINES, PAGE_SIZE, chunkUrl, eventsQuery, lastEventUrl } from './output-queries';

/** An output event as the events list serves it (the fields the output view uses). */
export interface OutputEvent {
  id: number;
  counter: number;
  event: string;
  event_display?: string;
  uuid?: string;
  parent_uuid?: string;
  stdout?: string;
  start_line: number;
  end_line: number;
  host_name?: string;
  play?: string;
  task?: string;
  failed?: boolean;
  changed?: boolean;
  event_data?: Record<string, unknown>;
  created?: string;
}

export interface OutputLine {
  text: string;
  counter: number;
  /** The last line of its event: where a play or task header shows its fold toggle. */
  last: boolean;
  /** Its event is a failure the task ignored. */
  ignored?: boolean;
}

const REFETCH_AFTER_MS = 1_000;

export interface ChildrenSummary {
  children_summary: Record<string, { rowNumber: number; numChildren: number }>;
  is_tree: boolean;
}

interface Fold {
  counter: number;
  start: number;
  end: number;
}

const slim = ({ id, counter, event, event_display, uuid, parent_uuid, start_line, end_line, host_name, play, task, failed, changed }: OutputEvent): OutputEvent => ({
  id, counter, event, event_display, uuid, parent_uuid, start_line, end_line, host_name, play, task, failed, changed,
});

/**
 * The output of one run, line by line, as far as it has been read: from the events list in chunks
 * of lines (as the viewer scrolls) and from live events. Lines are keyed by number, so an event
 * read twice (live and from the API) is shown once. Folded plays and tasks hide line ranges; rows
 * are the lines still shown.
 */
export class OutputStore {
  readonly lines = new Map<number, OutputLine>();
  readonly events = new Map<number, OutputEvent>();
  totalLines = 0;
  eventCount = 0;
  /** Lines of events are all known (the run is over and its events stored). */
  finished = false;
  version = 0;
  error: unknown = null;
  tree: ChildrenSummary | null = null;
  private folds: Fold[] = [];
  private hidden: { start: number; end: number }[] = [];
  private readonly complete = new Set<number>();
  private readonly fetchedAt = new Map<number, number>();
  private readonly inflight = new Set<number>();
  private readonly listeners = new Set<() => void>();
  private scheduled = false;

  constructor(readonly eventsUrl: string) {}

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  getVersion = () => this.version;

  /** Listeners hear of changes once per frame, however many events arrive in it. */
  changed() {
    this.version += 1;
    if (this.scheduled) return;
    this.scheduled = true;
    const run = () => {
      this.scheduled = false;
      for (const listener of this.listeners) listener();
    };
    if (typeof requestAnimationFrame === 'function' && document.visibilityState === 'visible') requestAnimationFrame(run);
    else setTimeout(run, 50);
  }

  add(events: OutputEvent[]) {
    for (const event of events) {
      if (typeof event.counter !== 'number') continue;
      if (!this.events.has(event.counter)) this.events.set(event.counter, slim(event));
      const count = (event.end_line ?? 0) - (event.start_line ?? 0);
      if (count <= 0) continue;
      const texts = String(event.stdout ?? '').split(/\r?\n/);
      const ignored = isIgnoredFailure(event);
      for (let i = 0; i < count; i++) {
        const line = event.start_line + i;
        if (!this.lines.has(line)) this.lines.set(line, { text: texts[i] ?? '', counter: event.counter, last: i === count - 1, ...(ignored && { ignored }) });
      }
      if (event.end_line > this.totalLines) this.totalLines = event.end_line;
    }
    if (events.length) this.changed();
  }

  private query(params: Record<string, string | number>) {
    return http.get<Page<OutputEvent>>(eventsQuery(this.eventsUrl, params));
  }

  /** Reads the last event: how many lines and events there are so far. */
  async loadEnd() {
    try {
      const page = await http.get<Page<OutputEvent>>(lastEventUrl(this.eventsUrl));
      this.eventCount = Math.max(this.eventCount, page.count);
      this.add(page.results);
      this.changed();
    } catch (err) {
      this.fail(err);
    }
  }

  private fail(err: unknown) {
    this.error = err;
    this.changed();
  }

  /** Reads the first chunk of lines before the run's length is known. */
  loadStart() {
    if (!this.inflight.has(0) && !this.complete.has(0)) void this.loadChunk(0);
  }

  /** Reads the chunks of lines [from, to) not read yet (again later when a running run had not written them). */
  ensureLines(from: number, to: number) {
    const first = Math.floor(Math.max(0, from) / CHUNK_LINES);
    const last = Math.floor(Math.max(0, Math.min(to, this.totalLines) - 1) / CHUNK_LINES);
    for (let chunk = first; chunk <= last; chunk++) {
      if (this.complete.has(chunk) || this.inflight.has(chunk)) continue;
      if (this.hasAll(chunk)) {
        if (this.finished || (chunk + 1) * CHUNK_LINES <= this.totalLines) this.complete.add(chunk);
        continue;
      }
      if (Date.now() - (this.fetchedAt.get(chunk) ?? 0) < REFETCH_AFTER_MS) {
        this.retryLater();
        continue;
      }
      void this.loadChunk(chunk);
    }
  }

  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private retryLater() {
    this.retryTimer ??= setTimeout(() => {
      this.retryTimer = undefined;
      this.changed();
    }, REFETCH_AFTER_MS);
  }

  private hasAll(chunk: number) {
    const end = Math.min((chunk + 1) * CHUNK_LINES, this.totalLines);
    for (let line = chunk * CHUNK_LINES; line < end; line++) if (!this.lines.has(line)) return false;
    return true;
  }

  private async loadChunk(chunk: number) {
    this.inflight.add(chunk);
    this.fetchedAt.set(chunk, Date.now());
    try {
      const page = await http.get<Page<OutputEvent>>(chunkUrl(this.eventsUrl, chunk));
      this.add(page.results);
    } catch (err) {
      this.fail(err);
    } finally {
      this.inflight.delete(chunk);
      this.changed();
    }
  }

  /** One event in full (event_data included), for its detail. */
  async fullEvent(counter: number): Promise<OutputEvent | undefined> {
    return (await this.query({ counter })).results[0];
  }

  // Folding -----------------------------------------------------------------------------------

  get rowCount() {
    return this.totalLines - this.hidden.reduce((n, h) => n + h.end - h.start, 0);
  }

  rowToLine(row: number) {
    let line = row;
    for (const h of this.hidden) {
      if (h.start > line) break;
      line += h.end - h.start;
    }
    return line;
  }

  lineToRow(line: number) {
    let row = line;
    for (const h of this.hidden) {
      if (h.start > line) break;
      row -= Math.min(line, h.end) - h.start;
    }
    return row;
  }

  /** A play or task header that can fold: the event on that line, when the tree says it has children. */
  foldable(line: OutputLine): boolean {
    if (!line.last || !this.tree?.is_tree) return false;
    const event = this.events.get(line.counter);
    return !!event && (event.event === 'playbook_on_play_start' || event.event === 'playbook_on_task_start') && !!this.tree.children_summary[line.counter];
  }

  isFolded = (counter: number) => this.folds.some((f) => f.counter === counter);
  get hasFolds() {
    return this.folds.length > 0;
  }

  /** Folds (or unfolds) a header: its descendants are the events right after it in the tree's rows. */
  async toggleFold(counter: number) {
    if (this.isFolded(counter)) {
      this.folds = this.folds.filter((f) => f.counter !== counter);
      return this.refold();
    }
    const event = this.events.get(counter);
    const entry = this.tree?.children_summary[counter];
    if (!event || !entry) return;
    const nextRow = entry.rowNumber + entry.numChildren + 1;
    let end = this.totalLines;
    if (nextRow < this.eventCount) {
      const page = await this.query({ order_by: 'counter', page_size: 1, page: nextRow + 1 }).catch(() => null);
      if (page?.results[0]) end = page.results[0].start_line;
    }
    if (end > event.end_line) this.folds = [...this.folds, { counter, start: event.end_line, end }];
    this.refold();
  }

  unfoldAll() {
    this.folds = [];
    this.refold();
  }

  /** Unfolds whatever hides a line (to show a search match or a failure). */
  reveal(line: number) {
    const before = this.folds.length;
    this.folds = this.folds.filter((f) => line < f.start || line >= f.end);
    if (this.folds.length !== before) this.refold();
  }

  private refold() {
    const sorted = [...this.folds].sort((a, b) => a.start - b.start);
    const merged: { start: number; end: number }[] = [];
    for (const f of sorted) {
      const last = merged[merged.length - 1];
      if (last && f.start <= last.end) last.end = Math.max(last.end, f.end);
      else merged.push({ start: f.start, end: f.end });
    }
    this.hidden = merged;
    this.changed();
  }

  /** The first line of the first host failure that was not ignored, or undefined. */
  async firstFailureLine(): Promise<number | undefined> {
    // failed is false on the failures a task ignored (ignore_errors): the play went on past them.
    const page = await this.query({ order_by: 'counter', page_size: 1, event__in: 'runner_on_failed,runner_on_unreachable,runner_on_async_failed,runner_item_on_failed', failed: 'true', end_line__gt: 0 });
    const event = page.results[0];
    if (!event) return undefined;
    this.add(page.results);
    return event.start_line;
  }

  /** Events whose output contains `term`, a page at a time (they are added to the lines as well). */
  async searchPage(term: string, page: number): Promise<Page<OutputEvent>> {
    const result = await this.query({ order_by: 'counter', stdout__icontains: term, end_line__gt: 0, page_size: PAGE_SIZE, page });
    this.add(result.results);
    return result;
  }
}
