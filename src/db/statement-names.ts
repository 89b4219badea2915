import { createHash } from 'node:crypto';

/**
 * Which statements go to the PostgreSQL server as named prepared statements, so that each of the
 * pool's connections parses (and, once PostgreSQL settles on a generic plan, plans) them once
 * instead of on every run: those with parameters, once a text has run PREPARE_AFTER times (as
 * PgJDBC's prepareThreshold). At most MAX_NAMED texts get a name in a process, so a connection
 * never holds more prepared statements than that, whatever dynamic SQL (list filters) is sent.
 */
const PREPARE_AFTER = 5;
const MAX_NAMED = 256;
/** Texts counted but not yet named; the counts start over past this many (one-off texts of filters). */
const MAX_COUNTED = 10_000;

export class StatementNames {
  private readonly named = new Map<string, string>();
  private readonly counts = new Map<string, number>();
  /** Texts that must go unnamed: their prepared form failed after a schema change. */
  private readonly unnamed = new Set<string>();

  /** The name to send `text` under, or undefined to send it as an unnamed statement. */
  nameFor(text: string): string | undefined {
    const name = this.named.get(text);
    if (name !== undefined || this.named.size >= MAX_NAMED || this.unnamed.has(text)) return name;
    const count = (this.counts.get(text) ?? 0) + 1;
    if (count < PREPARE_AFTER) {
      if (this.counts.size >= MAX_COUNTED) this.counts.clear();
      this.counts.set(text, count);
      return undefined;
    }
    this.counts.delete(text);
    const made = `drover_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
    this.named.set(text, made);
    return made;
  }

  /**
   * Whether `err` is PostgreSQL refusing a prepared statement whose result columns a schema
   * change altered (a table read with SELECT * gained a column); the text then goes unnamed from
   * now on, and a statement outside a transaction may simply be sent again.
   */
  staleAfterSchemaChange(text: string, err: unknown): boolean {
    const stale = this.named.has(text) && (err as { code?: string }).code === '0A000' && /cached plan must not change result type/.test(String((err as Error).message));
    if (stale) {
      this.named.delete(text);
      this.unnamed.add(text);
    }
    return stale;
  }
}
