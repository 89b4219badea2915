import type { Services } from '../api/context.ts';
import type { Row } from '../db/database.ts';
import { registerInstance } from '../server/bootstrap.ts';
import { reapLostNodes } from '../task-manager/lost-nodes.ts';
import { schedulePass } from '../task-manager/schedule.ts';
import { executeRun } from './execute-run.ts';
import { cleanLeftoverRuns } from './run-directories.ts';
import { failCutOffRuns } from '../runs/lifecycle.ts';

const POLL_MS = 1_000;
const CANCEL_POLL_MS = 500;
/** A safety cap on runs of one node; capacity rules normally keep it far lower. */
const MAX_LOCAL_RUNS = 64;
const HEARTBEAT_MS = 30_000;

export interface Dispatcher {
  wake(): void;
  /** Cancels a run of this node at once (other nodes see the cancel flag on their next poll). */
  cancel(jobId: number): void;
  /** Resolves once no run of this node is in progress (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

const dispatchers = new Set<Dispatcher>();

/** Nudges every dispatcher of this process to look for pending runs now. */
export function wakeDispatcher(): void {
  for (const d of dispatchers) d.wake();
}

/**
 * For callers inside a transaction that creates a run: looks again shortly, once the run is
 * committed and visible (the poll would find it within a second anyway).
 */
export function wakeDispatcherSoon(): void {
  for (const delay of [20, 150]) setTimeout(wakeDispatcher, delay).unref();
}

export function cancelLocally(jobId: number): void {
  for (const d of dispatchers) d.cancel(jobId);
}

/**
 * The dispatcher of this node: a task manager pass (shared by all nodes through a lock) moves
 * pending runs to waiting on an instance chosen by capacity, then this node starts the waiting
 * runs it was given. It also heartbeats the node's instance and reaps runs of lost nodes.
 */
export function startDispatcher(services: Services): Dispatcher {
  const { db, env } = services;
  const running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  let stopped = false;
  let scanning: Promise<void> | null = null;
  let again = false;

  const claimOwn = async (limit: number): Promise<Row[]> =>
    db.query(
      `SELECT * FROM unified_jobs WHERE status = 'waiting' AND execution_node = $1 AND NOT (id = ANY($2::int[])) ORDER BY id LIMIT $3`,
      [env.nodeName, [...running.keys()], limit],
    );

  /** Task manager passes over every pending run, a share at a time (each share in its own transaction). */
  const scheduleAll = async () => {
    let after = 0;
    for (;;) {
      const pass = await schedulePass(db, after);
      if (!pass.more || stopped) return;
      after = pass.next;
    }
  };

  const scan = async () => {
    do {
      again = false;
      if (stopped) return;
      await scheduleAll();
      const free = MAX_LOCAL_RUNS - running.size;
      if (free <= 0 || stopped) return;
      const claimed = await claimOwn(free);
      // A stop that came meanwhile leaves them waiting for the next start (its reaper fails them).
      if (stopped) return;
      for (const job of claimed) start(job);
    } while (again && !stopped);
  };

  const wake = () => {
    if (stopped) return;
    if (scanning) {
      again = true;
      return;
    }
    scanning = scan()
      .catch((err) => console.error('dispatcher scan failed:', err instanceof Error ? err.message : err))
      .finally(() => {
        scanning = null;
      });
  };

  const start = (job: Row) => {
    const controller = new AbortController();
    const done = executeRun(services, job, controller)
      .catch((err) => console.error(`run ${job.id} ended abnormally:`, err instanceof Error ? err.message : err))
      .finally(() => {
      running.delete(job.id);
      wake();
    });
    running.set(job.id, { controller, done });
  };

  const poller = setInterval(wake, POLL_MS);
  poller.unref();
  const heartbeat = setInterval(() => {
    void registerInstance(db, env)
      .then(() => reapLostNodes(db, env.nodeName))
      .catch((err) => console.error('heartbeat failed:', err instanceof Error ? err.message : err));
  }, HEARTBEAT_MS);
  heartbeat.unref();
  // Runs canceled through another node, or by a request this process did not see, stop here too.
  const cancelPoller = setInterval(() => {
    if (!running.size) return;
    void db
      .query<{ id: number }>('SELECT id FROM unified_jobs WHERE id = ANY($1::integer[]) AND cancel_flag', [[...running.keys()]])
      .then((rows) => rows.forEach((r) => running.get(r.id)?.controller.abort('canceled')))
      .catch(() => undefined);
  }, CANCEL_POLL_MS);
  cancelPoller.unref();

  const dispatcher: Dispatcher = {
    wake,
    cancel: (jobId) => running.get(jobId)?.controller.abort('canceled'),
    idle: async () => {
      while (running.size || scanning) await Promise.all([scanning, ...[...running.values()].map((r) => r.done)]);
    },
    stop: async () => {
      stopped = true;
      dispatchers.delete(dispatcher);
      clearInterval(poller);
      clearInterval(heartbeat);
      clearInterval(cancelPoller);
      await scanning;
      for (const r of running.values()) r.controller.abort('shutdown');
      await Promise.all([...running.values()].map((r) => r.done));
    },
  };
  dispatchers.add(dispatcher);
  queueMicrotask(wake);
  return dispatcher;
}

const REAPED = 'Task was marked as running at system start up. The system must have not shut down properly, so it has been marked as failed.';

/** At start, runs this node left running were cut off: they are marked failed (AWX's reaper); those it had not started yet are queued again. */
export async function reapOrphanedRuns(services: Services): Promise<number> {
  const { db, env } = services;
  await cleanLeftoverRuns(env);
  // Runs given to this node that never started go back to the queue.
  await db.query(
    `UPDATE unified_jobs SET status = 'pending', execution_node = '', controller_node = '', instance_group_id = NULL, modified = now()
     WHERE execution_node = $1 AND status = 'waiting' AND started IS NULL`,
    [env.nodeName],
  );
  const orphans = await db.query(`SELECT * FROM unified_jobs WHERE execution_node = $1 AND status IN ('waiting', 'running')`, [env.nodeName]);
  return failCutOffRuns(db, orphans, () => REAPED);
}
