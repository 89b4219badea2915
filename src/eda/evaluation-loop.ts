import { setTimeout as sleep } from 'node:timers/promises';
import type { RunServices } from '../runs/run-services.ts';
import { startWokenLoop, type WokenLoop } from '../db/woken-loop.ts';
import type { EdaLaunchers } from './actions.ts';
import { BATCH, evaluateNextBatch } from './evaluation.ts';
import { EVENTS_CHANNEL } from './intake.ts';

const SWEEP_MS = 15_000;
/**
 * After a batch smaller than a full one, how long events gather before the next: the receiver stores
 * a few events per statement and wakes the loop each time, and a batch has costs of its own (a
 * transaction, a message to the sandbox, the launches of each target), so under load batches stay
 * large; an event waits at most this much longer.
 */
const GATHER_MS = 20;

/** Evaluates received events as they arrive (woken by the intake's NOTIFY), and at start what a stop left. */
export function startEventEvaluation(services: RunServices, launchers: EdaLaunchers): Promise<WokenLoop> {
  return startWokenLoop(services.db, {
    name: 'event evaluation',
    channel: EVENTS_CHANNEL,
    sweepMs: SWEEP_MS,
    logger: services.logger,
    step: async () => {
      const evaluated = await evaluateNextBatch(services, launchers);
      if (evaluated > 0 && evaluated < BATCH) await sleep(GATHER_MS);
      return evaluated > 0;
    },
  });
}
