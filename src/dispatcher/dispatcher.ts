import { systemContextIn } from '../api/context.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import { schedulePass } from '../task-manager/schedule.ts';
import { executeRun } from './execute-run.ts';
import { cleanLeftoverRuns } from './run-directories.ts';
import { CANCEL_CHANNEL, DISPATCH_CHANNEL, failCutOffRuns } from '../runs/lifecycle.ts';
import type { RunServices } from '../runs/run-services.ts';

/**
 * A look now and then whatever the notifications say: for what no transaction announces (an
 * instance's capacity freed by a heartbeat, a listener connection that was being reopened).
 */
const SWEEP_MS = 30_000;
/** How often the cancel flags of this node's running runs are read, besides the cancel notice (as AWX's cancel callback polls). */
const CANCEL_CHECK_MS = 5_000;
/** A safety cap on runs of one node; capacity rules normally keep it far lower. */
const MAX_LOCAL_RUNS = 64;

export interface Dispatcher {
  wake(): void;
  /** Resolves once no run of this node is in progress (tests). */
  idle(): Promise<void>;
  /** Wakes the dispatcher and resolves once a pass begun after the call has ended (tests). */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The dispatcher of this node: a task manager pass (shared by all nodes through a lock) moves
 * pending runs to waiting on an instance chosen by capacity, then this node starts the waiting
 * runs it was given. It wakes when a transaction that queued or finished a run commits (on any
 * node: NOTIFY on DISPATCH_CHANNEL), and stops a run of its own when a cancel is announced.
 */
export async function startDispatcher(services: RunServices): Promise<Dispatcher> {
  const { db, env, runKinds } = services;
  const system = systemContextIn(services);
  const running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  let stopped = false;
  let scanning: Promise<void> | null = null;
  let again = false;

  const claimOwn = async (limit: number): Promise<UnifiedJobRow[]> =>
    db.query<UnifiedJobRow>(
      `SELECT * FROM unified_jobs WHERE status = 'waiting' AND execution_node = $1 AND NOT (id = ANY($2::int[])) ORDER BY id LIMIT $3`,
      [env.nodeName, [...running.keys()], limit],
    );

  /** Task manager passes over every pending run, a share at a time (each share in its own transaction). */
  const scheduleAll = async () => {
    let after = 0;
    for (;;) {
      const pass = await schedulePass(db, runKinds, system, after, services.tracing);
      if (!pass.more || stopped) return;
      after = pass.next;
    }
  };

  /** One round: the task manager's passes, then this node claims what it was given; a trace of its own. Answers whether it got to claim. */
  const dispatch = () => services.tracing.inSpan('dispatch', { 'drover.node': env.nodeName }, async (span) => {
    await scheduleAll();
    const free = MAX_LOCAL_RUNS - running.size;
    if (free <= 0 || stopped) return false;
    const claimed = await claimOwn(free);
    span.set({ 'drover.dispatch.claimed': claimed.length });
    // A stop that came meanwhile leaves them waiting for the next start (its reaper fails them).
    if (stopped) return false;
    for (const job of claimed) start(job);
    return true;
  }, { root: true });

  const scan = async () => {
    do {
      again = false;
      if (stopped) return;
      if (!(await dispatch())) return;
    } while (again && !stopped);
  };

  const wake = () => {
    if (stopped) return;
    if (scanning) {
      again = true;
      return;
    }
    scanning = scan()
      .catch((err) => services.logger.error('dispatcher scan failed:', err instanceof Error ? err.message : err))
      .finally(() => {
        scanning = null;
      });
  };

  const start = (job: UnifiedJobRow) => {
    const controller = new AbortController();
    const done = executeRun(services, job, controller)
      .catch((err) => services.logger.error(`run ${job.id} ended abnormally:`, err instanceof Error ? err.message : err))
      .finally(() => {
      running.delete(job.id);
      wake();
    });
    running.set(job.id, { controller, done });
  };

  const sweeper = setInterval(wake, SWEEP_MS);
  sweeper.unref();
  // A notice can be missed (a connection lost between commit and delivery): the flag is the truth.
  // A run already ended by another node (which took this node for lost while it stalled) is
  // stopped without storing an outcome over the one recorded.
  const cancelChecker = setInterval(() => {
    if (!running.size || stopped) return;
    db.query<{ id: number; ended: boolean }>(
      `SELECT id, status NOT IN ('waiting', 'running') AS ended FROM unified_jobs WHERE id = ANY($1::int[]) AND (cancel_flag OR status NOT IN ('waiting', 'running'))`,
      [[...running.keys()]],
    )
      .then((rows) => rows.forEach((row) => running.get(row.id)?.controller.abort(row.ended ? 'ended elsewhere' : 'canceled')))
      .catch(() => undefined);
  }, CANCEL_CHECK_MS);
  cancelChecker.unref();
  const unlisten = [
    await db.listen(DISPATCH_CHANNEL, () => wake()),
    // A canceled workflow job is ended by the workflow loop.
    await db.listen(CANCEL_CHANNEL, (payload) => running.get(Number(payload))?.controller.abort('canceled')),
  ];

  const dispatcher: Dispatcher = {
    wake,
    idle: async () => {
      while (running.size || scanning) await Promise.all([scanning, ...[...running.values()].map((r) => r.done)]);
    },
    settle: async () => {
      wake();
      while (scanning) await scanning;
    },
    stop: async () => {
      stopped = true;
      clearInterval(sweeper);
      clearInterval(cancelChecker);
      await Promise.all(unlisten.map((stop) => stop().catch(() => undefined)));
      await scanning;
      for (const r of running.values()) r.controller.abort('shutdown');
      await Promise.all([...running.values()].map((r) => r.done));
    },
  };
  queueMicrotask(wake);
  return dispatcher;
}

const REAPED = 'Task was marked as running at system start up. The system must have not shut down properly, so it has been marked as failed.';

/** At start, runs this node left running were cut off: they are marked failed (AWX's reaper); those it had not started yet are queued again. */
export async function reapOrphanedRuns(services: RunServices): Promise<number> {
  const { db, env } = services;
  await cleanLeftoverRuns(env);
  // Runs given to this node that never started go back to the queue.
  await db.query(
    `UPDATE unified_jobs SET status = 'pending', execution_node = '', controller_node = '', instance_group_id = NULL, modified = now()
     WHERE execution_node = $1 AND status = 'waiting' AND started IS NULL`,
    [env.nodeName],
  );
  const orphans = await db.query<UnifiedJobRow>(`SELECT * FROM unified_jobs WHERE execution_node = $1 AND status IN ('waiting', 'running')`, [env.nodeName]);
  return failCutOffRuns(db, services.runKinds, orphans, () => REAPED);
}
