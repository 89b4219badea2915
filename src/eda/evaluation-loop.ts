import type { Services } from '../api/context.ts';
import { startWokenLoop, type WokenLoop } from '../db/woken-loop.ts';
import type { EdaLaunchers } from './actions.ts';
import { evaluateNextBatch } from './evaluation.ts';
import { EVENTS_CHANNEL } from './intake.ts';

const SWEEP_MS = 15_000;

/** Evaluates received events as they arrive (woken by the intake's NOTIFY), and at start what a stop left. */
export function startEventEvaluation(services: Services, launchers: EdaLaunchers): Promise<WokenLoop> {
  return startWokenLoop(services.db, { name: 'event evaluation', channel: EVENTS_CHANNEL, sweepMs: SWEEP_MS, step: () => evaluateNextBatch(services, launchers) });
}
