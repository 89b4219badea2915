/**
 * The workflow loop: runs the workflow pass on its own, beside the dispatcher, so a node released
 * by a run's end starts its run without waiting for a task manager pass. It is woken by NOTIFY on
 * WORKFLOWS_CHANNEL, sent by triggers (migration 0034) in the transaction that gives a run its final
 * status: a node's run that ended names its workflow job, which alone is looked at; an empty notice
 * (a workflow job or approval stored pending, a workflow job ended) asks for a sweep. A cancel notice
 * names the workflow job to cancel. A periodic sweep catches what a lost notice left.
 */
import { CANCEL_CHANNEL } from '../../runs/lifecycle.ts';
import { advanceWorkflowJobs, sweepWorkflows, WORKFLOWS_CHANNEL } from './workflow-pass.ts';
import { newWorkflowMemory } from './graph-read.ts';
import type { RunServices } from '../../runs/run-services.ts';

/** A sweep this often whatever the notices say (a listener connection being reopened loses them). */
const SWEEP_MS = 5_000;
/**
 * Looks at once, each in its own transaction: a burst of ended runs (many workflows at a time) does
 * not queue behind one connection's round trips. The embedded database takes transactions one at a
 * time whatever this says.
 */
const PARALLEL_ADVANCES = 4;
/** Workflow jobs one look moves on together (in one transaction, their nodes sharing reads). */
const BATCH = 20;

export interface WorkflowLoop {
  wake(): void;
  /** Waits until no sweep or workflow job's look is in progress (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export async function startWorkflowLoop(services: RunServices): Promise<WorkflowLoop> {
  const { db } = services;
  /** Workflow jobs to look at, named by notices or by a sweep, and those being looked at now. */
  const named = new Set<number>();
  const advancing = new Map<number, Promise<void>>();
  let sweeping: Promise<void> | null = null;
  let sweepAgain = false;
  let stopped = false;
  /** What never changes of templates and running graphs, remembered between looks. */
  const memory = newWorkflowMemory();

  const log = (what: string, err: unknown) => services.logger.error(`${what} failed:`, err instanceof Error ? err.message : err);

  // The next approval's due time: a sweep then fails it if nobody answered.
  let dueTimer: NodeJS.Timeout | null = null;
  const sweepWhenDue = (ms: number | null) => {
    if (dueTimer) clearTimeout(dueTimer);
    dueTimer = ms === null || stopped ? null : setTimeout(sweep, Math.max(0, Math.min(ms + 50, SWEEP_MS)));
    dueTimer?.unref();
  };

  let looks = 0;
  /** Workflow jobs a failed batch held: each is looked at alone, so one that fails holds up no other. */
  const alone = new Set<number>();

  /**
   * Starts looks at named workflow jobs, up to BATCH together, while fewer than PARALLEL_ADVANCES
   * run; never two at once at one workflow job.
   */
  const advance = () => {
    while (!stopped && looks < PARALLEL_ADVANCES) {
      // Named again while looked at: looked at again after (the look may have begun before the change).
      const free = [...named].filter((id) => !advancing.has(id));
      if (!free.length) return;
      const batch = alone.has(free[0]) ? [free[0]] : free.filter((id) => !alone.has(id)).slice(0, BATCH);
      for (const id of batch) named.delete(id);
      looks += 1;
      const look = advanceWorkflowJobs(services, batch, memory)
        .then(() => { for (const id of batch) alone.delete(id); })
        .catch((err) => {
          // Nothing of the batch was kept: each is looked at again alone (a failed look alone leaves its wake-up for the next sweep).
          if (batch.length > 1) for (const id of batch) { alone.add(id); named.add(id); }
          else {
            alone.delete(batch[0]);
            log(`workflow job ${batch[0]}`, err);
          }
        })
        .finally(() => {
          looks -= 1;
          for (const id of batch) advancing.delete(id);
          advance();
        });
      for (const id of batch) advancing.set(id, look);
    }
  };

  /** One sweep at a time; one asked for during a sweep runs after it. */
  function sweep() {
    if (stopped) return;
    if (sweeping) {
      sweepAgain = true;
      return;
    }
    sweepAgain = false;
    sweeping = sweepWorkflows(services)
      .then((found) => {
        for (const id of found.attention) named.add(id);
        sweepWhenDue(found.nextApprovalMs);
        advance();
      })
      .catch((err) => log('workflow sweep', err))
      .finally(() => {
        sweeping = null;
        if (sweepAgain) sweep();
      });
  }

  const notice = (payload: string) => {
    const id = Number(payload);
    if (!payload || !Number.isInteger(id)) return sweep();
    named.add(id);
    advance();
  };

  const sweeper = setInterval(sweep, SWEEP_MS);
  sweeper.unref();
  const unlisten = [
    await db.listen(WORKFLOWS_CHANNEL, notice),
    // Any run's cancel: a workflow job's is ended here (the pass skips runs of other kinds).
    await db.listen(CANCEL_CHANNEL, notice),
  ];
  queueMicrotask(sweep);
  const idle = async () => {
    while (sweeping || advancing.size) await Promise.all([sweeping, ...advancing.values()]);
  };
  return {
    wake: sweep,
    idle,
    stop: async () => {
      stopped = true;
      clearInterval(sweeper);
      if (dueTimer) clearTimeout(dueTimer);
      await Promise.all(unlisten.map((stop) => stop().catch(() => undefined)));
      await idle();
    },
  };
}
