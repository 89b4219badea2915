import { systemContextIn } from '../api/context.ts';
import { removeDrainedInstances } from './deprovision.ts';
import { registerInstance } from '../resources/instances/registration.ts';
import type { RunServices } from '../runs/run-services.ts';
import { heartbeatTiming } from './heartbeat-timing.ts';
import { reapLostNodes, secondsUntilNextLoss } from './lost-nodes.ts';

/** The soonest a look for lost nodes follows the previous one, whatever the deadlines say. */
const MIN_WATCH_MS = 100;

export interface NodeHealth {
  /** Looks for lost and drained nodes now; resolves once that look has ended (tests). */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * This node's heartbeat and its watch over the others. It records its instance now and every
 * CLUSTER_NODE_HEARTBEAT_PERIOD seconds (read again at each beat); it looks for lost nodes every
 * period and also at the moment the next ready node would become lost, so a silent node's runs
 * are handled as soon as its grace has passed; and it removes deprovisioned nodes once drained.
 * A node whose row was removed (deprovisioned) stops recording itself until it is started again.
 */
export async function startNodeHealth(services: RunServices, onBeat: () => Promise<void> = async () => undefined): Promise<NodeHealth> {
  const { db, env, runKinds, logger, settings } = services;
  const system = systemContextIn(services);
  await registerInstance(services);
  await onBeat();
  let registered = true;
  let stopped = false;
  // Beats and watches each run one at a time, apart: a watch slowed by the database never delays this node's heartbeat.
  const chains = { heartbeat: Promise.resolve(), 'lost node watch': Promise.resolve() };
  let beatTimer: NodeJS.Timeout | undefined;
  let watchTimer: NodeJS.Timeout | undefined;

  const serially = (name: keyof typeof chains, step: () => Promise<void>): Promise<void> =>
    (chains[name] = chains[name].then(step).catch((err) => logger.error(`${name} failed:`, err instanceof Error ? err.message : err)));

  const beat = async () => {
    if (stopped || !registered) return;
    registered = await registerInstance(services, undefined, { rejoin: false });
    if (registered) await onBeat();
    if (!registered) logger.warn(`This node (${env.nodeName}) was deprovisioned: it sends no more heartbeats and takes no new work until it is started again.`);
  };

  const watch = async () => {
    if (stopped) return;
    const { periodMs, graceSeconds } = heartbeatTiming(settings);
    try {
      const reaped = await reapLostNodes(db, runKinds, env.nodeName, graceSeconds);
      for (const node of reaped.unavailable) logger.warn(`Instance ${node} sent no heartbeat for ${graceSeconds} s: marked unavailable.`);
      if (reaped.requeued.length || reaped.failed.length) {
        logger.warn(`Runs of lost instances: ${reaped.requeued.length} queued again (${reaped.requeued.map((r) => r.id).join(', ') || 'none'}), ${reaped.failed.length} failed (${reaped.failed.map((r) => r.id).join(', ') || 'none'}).`);
      }
      for (const node of await removeDrainedInstances(db, system)) logger.info(`Instance ${node} has no more runs: deprovisioned.`);
    } finally {
      const next = await secondsUntilNextLoss(db, env.nodeName, graceSeconds).catch(() => null);
      const wait = next === null ? periodMs : Math.min(periodMs, Math.max(MIN_WATCH_MS, Math.ceil(next * 1000) + 10));
      if (!stopped) {
        clearTimeout(watchTimer);
        watchTimer = setTimeout(() => void serially('lost node watch', watch), wait);
        watchTimer.unref();
      }
    }
  };

  // Beats start a period apart, however long each took: a slow beat (a busy database or disk) must
  // not stretch the gap the other nodes measure against their grace.
  const scheduleBeat = (lastStart: number) => {
    if (stopped) return;
    const wait = Math.max(0, lastStart + heartbeatTiming(settings).periodMs - Date.now());
    beatTimer = setTimeout(() => {
      const start = Date.now();
      void serially('heartbeat', beat).then(() => scheduleBeat(start));
    }, wait);
    beatTimer.unref();
  };
  scheduleBeat(Date.now());
  void serially('lost node watch', watch);

  return {
    settle: () => serially('lost node watch', watch),
    async stop() {
      stopped = true;
      clearTimeout(beatTimer);
      clearTimeout(watchTimer);
      await Promise.all(Object.values(chains));
    },
  };
}
