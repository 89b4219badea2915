import type { Database } from './database.ts';
import type { ServiceLogger } from '../api/logger.ts';

export interface WokenLoop {
  wake(): void;
  /** Waits until the current round is over. */
  idle(): Promise<void>;
  /** Wakes the loop and waits until a round begun after the call is over (tests). */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

export interface WokenLoopOptions {
  /** Named in the log when a round fails. */
  name: string;
  /** NOTIFY channel that wakes the loop. */
  channel: string;
  /** Woken this often too, for work a lost NOTIFY or an expired claim left. */
  sweepMs: number;
  /** Does one piece of work; answers whether more may be waiting. */
  step(): Promise<boolean>;
  /** Where a failed round is reported (the service's logger). */
  logger: ServiceLogger;
}

/**
 * A loop over queued work (notifications to send, fact captures): woken by NOTIFY, by a periodic
 * sweep and once at start, it takes steps until none is left. It never runs two rounds at once; a
 * wake during a round runs another after it, so work queued as the last step found nothing is done.
 */
export async function startWokenLoop(db: Database, options: WokenLoopOptions): Promise<WokenLoop> {
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;

  const round = async () => {
    do {
      again = false;
      if (await options.step()) again = true;
    } while (again && !stopped);
  };
  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = round()
      .catch((err) => options.logger.error(`${options.name} failed:`, err instanceof Error ? err.message : err))
      .finally(() => {
        running = null;
        if (again) wake();
      });
  };

  const sweeper = setInterval(wake, options.sweepMs);
  sweeper.unref();
  const unlisten = await db.listen(options.channel, () => wake());
  queueMicrotask(wake);
  return {
    wake,
    idle: async () => {
      while (running) await running;
    },
    settle: async () => {
      wake();
      while (running) await running;
    },
    stop: async () => {
      stopped = true;
      clearInterval(sweeper);
      await unlisten().catch(() => undefined);
      while (running) await running;
    },
  };
}
