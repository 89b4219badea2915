/**
 * Takes queued fact captures (capture-queue.ts) one row at a time: claimed with SKIP LOCKED (nodes share
 * the work), captured, deleted. A claim a node did not finish is taken again after CLAIM_EXPIRY; a row
 * that failed MAX_ATTEMPTS times is dropped with a log line.
 */
import type { Database } from '../db/database.ts';
import { startWokenLoop, type WokenLoop } from '../db/woken-loop.ts';
import type { ServiceLogger } from '../api/logger.ts';
import { captureFacts } from './capture.ts';
import type { LogShipper } from '../logging/shipper.ts';
import { shipFacts } from '../logging/sources.ts';
import { FACT_CAPTURE_CHANNEL } from './capture-queue.ts';

const SWEEP_MS = 15_000;
const CLAIM_EXPIRY = '5 minutes';
const MAX_ATTEMPTS = 3;

async function claim(db: Database) {
  const [row] = await db.query<{ id: number; job_id: number | null; host_ids: number[]; attempts: number }>(
    `UPDATE fact_capture_queue SET attempts = attempts + 1, claimed_at = now()
     WHERE id = (SELECT id FROM fact_capture_queue
       WHERE claimed_at IS NULL OR claimed_at < now() - interval '${CLAIM_EXPIRY}'
       ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING id, job_id, host_ids, attempts`,
  );
  return row;
}

/** Captures the next queued row; answers whether there was one. */
async function captureNext(db: Database, logger: ServiceLogger, shipper?: LogShipper): Promise<boolean> {
  const row = await claim(db);
  if (!row) return false;
  try {
    await captureFacts(db, row.job_id, row.host_ids, shipper && ((hostIds) => shipFacts(db, shipper, row.job_id, hostIds)));
    await db.query('DELETE FROM fact_capture_queue WHERE id = $1', [row.id]);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (row.attempts < MAX_ATTEMPTS) logger.error(`fact capture of job ${row.job_id} failed, to be tried again: ${message}`);
    else {
      logger.error(`fact capture of job ${row.job_id} given up after ${MAX_ATTEMPTS} attempts: ${message}`);
      await db.query('DELETE FROM fact_capture_queue WHERE id = $1', [row.id]);
    }
  }
  return true;
}

export function startCaptureLoop(db: Database, logger: ServiceLogger, shipper?: LogShipper): Promise<WokenLoop> {
  return startWokenLoop(db, { name: 'fact capture', channel: FACT_CAPTURE_CHANNEL, sweepMs: SWEEP_MS, logger, step: () => captureNext(db, logger, shipper) });
}
