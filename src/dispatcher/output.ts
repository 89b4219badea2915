import type { Queryable } from '../db/database.ts';
import { replaceNul } from '../db/nul.ts';
import { publishEvents } from '../live/notices.ts';

const FLUSH_EVERY_MS = 200;
const FLUSH_AT_EVENTS = 500;

interface PendingEvent {
  counter: number;
  stdout: string;
  startLine: number;
}

/**
 * Appends a run's output as 'verbose' events, one per line, numbered and batched: a line is
 * stored within FLUSH_EVERY_MS of being written, and many lines go in one INSERT.
 */
export class OutputWriter {
  private counter = 0;
  private line = 0;
  private partial = '';
  private pending: PendingEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly db: Queryable, private readonly jobId: number) {}

  async write(text: string): Promise<void> {
    // The database cannot store a NUL: it becomes U+FFFD so the rest of the output is kept.
    const lines = (this.partial + replaceNul(text)).split(/\r?\n/);
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.pending.push({ counter: ++this.counter, stdout: line, startLine: this.line++ });
    if (this.pending.length >= FLUSH_AT_EVENTS) await this.flush();
    else if (this.pending.length && !this.timer) this.timer = setTimeout(() => void this.flush().catch(() => undefined), FLUSH_EVERY_MS);
  }

  /** Stores every line written so far (a last line without newline included when `final`). */
  async flush(final = false): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (final && this.partial) {
      this.pending.push({ counter: ++this.counter, stdout: this.partial, startLine: this.line++ });
      this.partial = '';
    }
    const batch = this.pending;
    this.pending = [];
    this.flushing = this.flushing.then(() => (batch.length ? this.insert(batch) : undefined));
    await this.flushing;
  }

  get eventCount(): number {
    return this.counter;
  }

  /** Where the next event goes: its counter less one, and its first line (after a flush of what is pending). */
  async position(): Promise<{ counter: number; line: number }> {
    await this.flush(true);
    return { counter: this.counter, line: this.line };
  }

  /** Skips past events another writer stored for the run (a playbook's own events). */
  advance(counter: number, line: number): void {
    this.counter = Math.max(this.counter, counter);
    this.line = Math.max(this.line, line);
  }

  private async insert(batch: PendingEvent[]): Promise<void> {
    await this.db.query(
      `INSERT INTO unified_job_events (unified_job_id, counter, uuid, event, stdout, start_line, end_line)
       SELECT $1, c, gen_random_uuid()::text, 'verbose', s, l, l + 1 FROM unnest($2::integer[], $3::text[], $4::integer[]) AS e(c, s, l)`,
      [this.jobId, batch.map((e) => e.counter), batch.map((e) => e.stdout), batch.map((e) => e.startLine)],
    );
    await publishEvents(this.db, this.jobId, batch.map((e) => e.counter));
  }
}
