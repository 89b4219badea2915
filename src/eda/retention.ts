/**
 * Removes event logs older than `days` (30 by default) that were evaluated: a log still waiting for its
 * evaluation is never removed, nor one younger than the timestamp tolerance (whatever `days` says:
 * the log's signature digest is what refuses a copy of its delivery). In chunks, so that a large backlog of old logs does not hold one long
 * transaction.
 */
import type { Queryable } from '../db/database.ts';
import { TIMESTAMP_TOLERANCE_SECONDS } from './sources.ts';

export const EVENT_LOG_RETENTION_DAYS = 30;
const CHUNK = 10_000;

export async function pruneEventLogs(db: Queryable, days = EVENT_LOG_RETENTION_DAYS): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await db.query(
      `DELETE FROM event_logs WHERE id IN (
         SELECT id FROM event_logs WHERE created < now() - make_interval(days => $1::int) AND created < now() - make_interval(secs => $2)
           AND status <> 'received' ORDER BY id LIMIT ${CHUNK})
       RETURNING id`,
      [days, TIMESTAMP_TOLERANCE_SECONDS],
    );
    total += removed.length;
    if (removed.length < CHUNK) return total;
  }
}
