/**
 * The hosts whose facts a job saved, queued for their snapshot: one row written when the job stores
 * its facts, then a NOTIFY that wakes the capture loop (capture-loop.ts). The job does not wait for
 * the capture; a stop leaves the row for the next start.
 */
import type { Queryable } from '../db/database.ts';

export const FACT_CAPTURE_CHANNEL = 'drover_fact_capture';

export async function queueFactCapture(db: Queryable, jobId: number | null, hostIds: readonly number[]): Promise<void> {
  if (!hostIds.length) return;
  await db.query('INSERT INTO fact_capture_queue (job_id, host_ids) VALUES ($1, $2::int[])', [jobId, hostIds]);
  await db.query(`SELECT pg_notify('${FACT_CAPTURE_CHANNEL}', '')`);
}
