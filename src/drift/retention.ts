/**
 * Removes fact snapshots older than `days` (90 by default), always keeping each host's `keep` (2)
 * newest so that its next capture still has something to compare with. Drift records keep their
 * rows; their snapshot links become null.
 */
import type { Queryable } from '../db/database.ts';

export const SNAPSHOT_RETENTION_DAYS = 90;
export const SNAPSHOTS_KEPT_PER_HOST = 2;

export async function pruneFactSnapshots(db: Queryable, days = SNAPSHOT_RETENTION_DAYS, keep = SNAPSHOTS_KEPT_PER_HOST): Promise<number> {
  const removed = await db.query(
    `DELETE FROM host_fact_snapshots WHERE captured_at < now() - make_interval(days => $1::int)
       AND id NOT IN (SELECT id FROM (
         SELECT id, row_number() OVER (PARTITION BY host_id ORDER BY captured_at DESC, id DESC) AS newest FROM host_fact_snapshots) ranked
         WHERE newest <= $2::int)
     RETURNING id`,
    [days, keep],
  );
  return removed.length;
}
