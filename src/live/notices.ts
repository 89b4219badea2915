import type { Queryable } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';

/** What a status notice reads of a run's row. */
export type RunStatus = Pick<UnifiedJobRow, 'id' | 'kind' | 'status' | 'unified_job_template_id'> & Partial<Pick<UnifiedJobRow, 'finished'>>;

/** The PostgreSQL channel every node listens on for live output. */
export const LIVE_CHANNEL = 'drover_live';

/**
 * What travels through NOTIFY: small references only (payloads are limited to 8,000 bytes).
 * Nodes with subscribers read the rows themselves.
 */
export type LiveNotice =
  | { t: 'status'; id: number; kind: string; status: string; template: number | null; finished: string | null }
  | { t: 'events'; id: number; from: number; to: number }
  | { t: 'eof'; id: number; kind: string; final: number };

async function notify(q: Queryable, notices: LiveNotice[]): Promise<void> {
  if (!notices.length) return;
  await q.query(`SELECT pg_notify($1, n) FROM unnest($2::text[]) AS n`, [LIVE_CHANNEL, notices.map((n) => JSON.stringify(n))]);
}

const isoOrNull = (value: unknown) => (value ? new Date(value as string).toISOString() : null);

const statusNotice = (row: RunStatus): LiveNotice => ({
  t: 'status',
  id: row.id,
  kind: row.kind,
  status: row.status,
  template: row.unified_job_template_id ?? null,
  finished: isoOrNull(row.finished),
});

/** The status notice of a run as sent on LIVE_CHANNEL, for a statement that sends it with others. */
export const statusNoticePayload = (row: RunStatus): string => JSON.stringify(statusNotice(row));

/**
 * Announces the current status of runs (rows of unified_jobs). Inside a transaction it is
 * delivered when the transaction commits, and not at all if it rolls back.
 */
export function publishStatusChanges(q: Queryable, rows: readonly RunStatus[]): Promise<void> {
  return notify(q, rows.filter((r) => r?.id && r.status).map(statusNotice));
}

/** Announces a stored batch of a run's events, one notice per batch. */
export function publishEvents(q: Queryable, runId: number, counters: readonly number[]): Promise<void> {
  if (!counters.length) return Promise.resolve();
  let from = counters[0];
  let to = counters[0];
  for (const c of counters) {
    if (c < from) from = c;
    if (c > to) to = c;
  }
  return notify(q, [{ t: 'events', id: runId, from, to }]);
}

type FinishedRun = RunStatus & Pick<UnifiedJobRow, 'emitted_events'>;

const finals = (row: FinishedRun): LiveNotice[] => [statusNotice(row), { t: 'eof', id: row.id, kind: row.kind, final: Number(row.emitted_events ?? 0) }];

/** The payloads publishFinal sends on LIVE_CHANNEL, for a statement that sends them with others. */
export const finalNotices = (row: FinishedRun): string[] => finals(row).map((n) => JSON.stringify(n));

/** Announces that every event of a finished run is stored, with its last counter. */
export function publishFinal(q: Queryable, row: FinishedRun): Promise<void> {
  return notify(q, finals(row));
}

export function parseNotice(payload: string): LiveNotice | null {
  try {
    const notice = JSON.parse(payload) as LiveNotice;
    return typeof notice?.id === 'number' && ['status', 'events', 'eof'].includes(notice.t) ? notice : null;
  } catch {
    return null;
  }
}
