import type { Queryable } from '../db/database.ts';

/** Deletes activity stream entries older than `days` days (cleanup_activitystream); answers how many. */
export async function cleanupActivityStream(db: Queryable, days: number): Promise<number> {
  const rows = await db.query('DELETE FROM activity_stream WHERE timestamp < now() - make_interval(days => $1) RETURNING id', [days]);
  return rows.length;
}
