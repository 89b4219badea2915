/**
 * Takes queued fact captures (capture-queue.ts): woken by NOTIFY and by a periodic sweep, it claims one
 * row at a time (SKIP LOCKED, so nodes share the work), captures its hosts and deletes it. A claim a
 * node did not finish is taken again after CLAIM_EXPIRY, up to MAX_ATTEMPTS times.
 */
import type { Database } from '../db/database.ts';
import { captureFacts, type CaptureOutcome } from './capture.ts';
import { FACT_CAPTURE_CHANNEL } from './capture-queue.ts';

const SWEEP_MS = 15_000;
const CLAIM_EXPIRY = '5 minutes';
const MAX_ATTEMPTS = 3;

export interface CaptureLoop {
  wake(): void;
  /** Waits until nothing is being captured. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

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

/** Captures every queued row; answers what was captured. */
export async function drainCaptures(db: Database, isStopped = () => false): Promise<CaptureOutcome[]> {
  const done: CaptureOutcome[] = [];
  for (let row = await claim(db); row && !isStopped(); row = await claim(db)) {
    try {
      done.push(await captureFacts(db, row.job_id, row.host_ids));
      await db.query('DELETE FROM fact_capture_queue WHERE id = $1', [row.id]);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (row.attempts >= MAX_ATTEMPTS) {
        console.error(`fact capture of job ${row.job_id} given up after ${MAX_ATTEMPTS} attempts: ${message}`);
        await db.query('DELETE FROM fact_capture_queue WHERE id = $1', [row.id]);
      } else console.error(`fact capture of job ${row.job_id} failed, to be tried again: ${message}`);
    }
  }
  return done;
}

export async function startCaptureLoop(db: Database): Promise<CaptureLoop> {
  let stopped = false;
  let running: Promise<unknown> | null = null;
  let again = false;
  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    again = false;
    running = drainCaptures(db, () => stopped)
      .catch((err) => console.error('fact capture failed:', err instanceof Error ? err.message : err))
      .finally(() => {
        running = null;
        if (again) wake();
      });
  };
  const sweeper = setInterval(wake, SWEEP_MS);
  sweeper.unref();
  const unlisten = await db.listen(FACT_CAPTURE_CHANNEL, () => wake());
  queueMicrotask(wake);
  return {
    wake,
    idle: async () => {
      while (running) await running;
    },
    async stop() {
      stopped = true;
      clearInterval(sweeper);
      await unlisten();
      while (running) await running;
    },
  };
}
