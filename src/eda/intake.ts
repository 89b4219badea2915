/**
 * Stores the events the receiver accepts, many deliveries to one INSERT: while IN_FLIGHT statements
 * run, the deliveries arriving meanwhile wait for the next, so the cost of a round trip and a commit is
 * shared. A delivery is answered only once its event is stored (a restart loses nothing that was
 * answered 202); the unique index on (rule, event_guid) finds repeated deliveries, including two
 * arriving in the same statement, and the evaluation loop is woken once per statement. A second
 * unique index, on (rule, signature_digest), finds a copy of an accepted delivery whose unsigned
 * headers were changed to give it another id: a replay, not a repeat.
 */
import type { Database } from '../db/database.ts';
import { replaceNulDeep } from '../db/nul.ts';

export const EVENTS_CHANNEL = 'drover_eda_events';
const MAX_BATCH = 500;
const IN_FLIGHT = 2;

export interface IncomingEvent {
  ruleId: number;
  ruleName: string;
  organizationId: number;
  sourceType: string;
  sourceIp: string;
  eventType: string;
  guid: string;
  payload: unknown;
  headers: Record<string, string>;
  status: 'received' | 'signature_failed';
  /** The digest of what the accepted delivery's signature signed (src/eda/sources.ts), when it has one. */
  signatureDigest?: string | null;
}

/**
 * The stored log's id; `event` when the rule had already received this event (a repeat, as senders
 * retry); `signature` when it had accepted this very signature under another event id (a replay).
 */
export type Stored = { id: number } | { already: 'event' | 'signature' };

interface Waiting {
  event: IncomingEvent;
  resolve(stored: Stored): void;
  reject(err: unknown): void;
}

export class EventIntake {
  private waiting: Waiting[] = [];
  private running = 0;
  private idle: Array<() => void> = [];

  constructor(private readonly db: Database) {}

  store(event: IncomingEvent): Promise<Stored> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ event, resolve, reject });
      this.pump();
    });
  }

  /** Waits until every event handed in so far is stored. */
  drained(): Promise<void> {
    if (!this.running && !this.waiting.length) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private pump(): void {
    while (this.running < IN_FLIGHT && this.waiting.length) {
      const batch = this.waiting.splice(0, MAX_BATCH);
      this.running++;
      this.insert(batch.map((w) => w.event))
        .then((ids) => batch.forEach((w) => w.resolve(ids(w.event))), (err) => batch.forEach((w) => w.reject(err)))
        .finally(() => {
          this.running--;
          this.pump();
          if (!this.running && !this.waiting.length) this.idle.splice(0).forEach((resolve) => resolve());
        });
    }
  }

  /** Inserts the events; answers each event's id, or what it repeats (the first of a key in the batch wins). */
  private async insert(events: IncomingEvent[]): Promise<(event: IncomingEvent) => Stored> {
    const rows = events.map((e) => ({
      event_rule_id: e.ruleId, event_rule_name: e.ruleName, organization_id: e.organizationId, source_type: e.sourceType, source_ip: e.sourceIp,
      event_type: e.eventType, event_guid: e.guid, payload: e.payload, headers: e.headers, status: e.status, signature_digest: e.signatureDigest ?? null,
    }));
    let text = JSON.stringify(rows);
    // JSON writes a NUL as \u0000, which jsonb cannot hold: only then are the values walked for it.
    if (text.includes('\\u0000')) text = JSON.stringify(rows.map((row) => ({ ...row, payload: replaceNulDeep(row.payload), headers: replaceNulDeep(row.headers) })));
    const received = events.some((e) => e.status === 'received');
    const stored = await this.db.query<{ id: number; event_rule_id: number; event_guid: string; status: string }>(
      `WITH made AS (
         INSERT INTO event_logs (event_rule_id, event_rule_name, organization_id, source_type, source_ip, event_type, event_guid, payload, headers, status, signature_digest)
         SELECT event_rule_id, event_rule_name, organization_id, source_type, source_ip, event_type, event_guid, payload, headers, status, signature_digest
         FROM jsonb_to_recordset($1::jsonb) AS e(event_rule_id integer, event_rule_name text, organization_id integer, source_type text, source_ip text,
           event_type text, event_guid text, payload jsonb, headers jsonb, status text, signature_digest text)
         -- Either unique index: the event's id (a repeat) or its signature (a replay).
         ON CONFLICT DO NOTHING
         RETURNING id, event_rule_id, event_guid, status)
       SELECT made.*${received ? `, (SELECT pg_notify('${EVENTS_CHANNEL}', '') FROM made WHERE status = 'received' LIMIT 1) AS woke` : ''} FROM made`,
      [text],
    );
    const byKey = new Map<string, number>();
    for (const row of stored) if (row.status === 'received') byKey.set(`${row.event_rule_id}:${row.event_guid}`, Number(row.id));
    const kept = new Map(byKey);
    const left = events.filter((e) => e.status === 'received' && !byKey.has(`${e.ruleId}:${e.guid}`));
    const knownEvents = new Set(left.length ? await this.knownEvents(left) : []);
    return (event) => {
      const key = `${event.ruleId}:${event.guid}`;
      const id = byKey.get(key);
      if (event.status === 'received' && id !== undefined) {
        byKey.delete(key);
        return { id };
      }
      // Another delivery of the event stored before (or earlier in this batch) makes it a repeat.
      return { already: knownEvents.has(key) || kept.has(key) ? 'event' : 'signature' };
    };
  }

  /** Which of these events' ids their rules already hold. */
  private async knownEvents(events: IncomingEvent[]): Promise<string[]> {
    const rows = await this.db.query<{ key: string }>(
      `SELECT event_rule_id || ':' || event_guid AS key FROM event_logs
       WHERE status <> 'signature_failed' AND (event_rule_id, event_guid) IN (SELECT * FROM unnest($1::int[], $2::text[]))`,
      [events.map((e) => e.ruleId), events.map((e) => e.guid)],
    );
    return rows.map((r) => r.key);
  }
}
