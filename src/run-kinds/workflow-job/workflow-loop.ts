/**
 * The workflow loop: runs the workflow pass on its own, beside the dispatcher, so a node released
 * by a run's end starts its run without waiting for a task manager pass. It is woken by NOTIFY on
 * WORKFLOWS_CHANNEL, sent by triggers (migration 0033) in the transaction that gives a run its final
 * status: a node's run that ended names its workflow job, which alone is looked at; an empty notice
 * (a workflow job or approval stored pending, a workflow job ended) asks for a sweep. A cancel notice
 * names the workflow job to cancel. A periodic sweep catches what a lost notice left.
 */
import type { Services } from '../../api/context.ts';
import { CANCEL_CHANNEL } from '../../runs/lifecycle.ts';
import { advanceWorkflowJob, sweepWorkflows } from './workflow-pass.ts';

export const WORKFLOWS_CHANNEL = 'drover_workflows';

/** A sweep this often whatever the notices say (a listener connection being reopened loses them). */
const SWEEP_MS = 5_000;

export interface WorkflowLoop {
  wake(): void;
  /** Waits until the current round is over (tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export async function startWorkflowLoop(services: Services): Promise<WorkflowLoop> {
  const { db } = services;
  /** Workflow jobs named by notices since the last round took them. */
  const named = new Set<number>();
  let sweepWanted = true;
  let stopped = false;
  let running: Promise<void> | null = null;

  const log = (what: string, err: unknown) => console.error(`${what} failed:`, err instanceof Error ? err.message : err);

  // The next approval's due time: a sweep then fails it if nobody answered.
  let dueTimer: NodeJS.Timeout | null = null;
  const sweepWhenDue = (ms: number | null) => {
    if (dueTimer) clearTimeout(dueTimer);
    dueTimer = ms === null || stopped ? null : setTimeout(askSweep, Math.max(0, Math.min(ms + 50, SWEEP_MS)));
    dueTimer?.unref();
  };

  const round = async () => {
    while (!stopped && (sweepWanted || named.size)) {
      if (sweepWanted) {
        sweepWanted = false;
        const sweep = await sweepWorkflows(services);
        for (const id of sweep.attention) named.add(id);
        sweepWhenDue(sweep.nextApprovalMs);
      }
      const ids = [...named];
      named.clear();
      for (const id of ids) {
        if (stopped) return;
        // One workflow job failing to move on leaves its flag set for the next sweep; the others go on.
        await advanceWorkflowJob(services, id).catch((err) => log(`workflow job ${id}`, err));
      }
    }
  };

  const wake = () => {
    if (stopped || running) return;
    let failed = false;
    running = round()
      .catch((err) => {
        failed = true;
        sweepWanted = true;
        log('workflow pass', err);
      })
      .finally(() => {
        running = null;
        // Notices that came as the round ended are taken now; after a failure, at the next notice or sweep.
        if (!failed && (named.size || sweepWanted)) wake();
      });
  };
  function askSweep() {
    sweepWanted = true;
    wake();
  }
  const notice = (payload: string) => {
    const id = Number(payload);
    if (payload && Number.isInteger(id)) named.add(id);
    else sweepWanted = true;
    wake();
  };

  const sweeper = setInterval(askSweep, SWEEP_MS);
  sweeper.unref();
  const unlisten = [
    await db.listen(WORKFLOWS_CHANNEL, notice),
    // Any run's cancel: a workflow job's is ended here (the pass skips runs of other kinds).
    await db.listen(CANCEL_CHANNEL, notice),
  ];
  queueMicrotask(wake);
  return {
    wake: askSweep,
    idle: async () => {
      while (running) await running;
    },
    stop: async () => {
      stopped = true;
      clearInterval(sweeper);
      if (dueTimer) clearTimeout(dueTimer);
      await Promise.all(unlisten.map((stop) => stop().catch(() => undefined)));
      while (running) await running;
    },
  };
}
