/** The background loops a node with the dispatcher role runs, in the order they start. */
import { startDispatcher } from '../dispatcher/dispatcher.ts';
import { recordManualDirectories } from '../projects/manual-dirs.ts';
import { startNotificationSender } from '../notifications/sender.ts';
import { startOutboundWebhookSender } from '../notifications/outbound-webhook-sender.ts';
import { startPolicyEngineSync } from '../policy/engine-sync.ts';
import { startNodeHealth } from '../task-manager/node-health.ts';
import { startScheduler } from '../task-manager/scheduler.ts';
import { postCommitStatuses } from '../runs/webhooks/commit-status.ts';
import { startCaptureLoop } from '../drift/capture-loop.ts';
import { startActivityShipping } from '../logging/sources.ts';
import { pruneFactSnapshots } from '../drift/retention.ts';
import { startEventEvaluation } from '../eda/evaluation-loop.ts';
import { pruneEventLogs } from '../eda/retention.ts';
import { cleanupHostMetrics, DEFAULT_HARD_THRESHOLD, DEFAULT_SOFT_THRESHOLD, summarizeHostMetricsMonthly } from '../resources/host-metrics/host-metric-tasks.ts';
import { edaLaunchers } from '../eda/actions.ts';
import { startWorkflowLoop } from '../run-kinds/workflow-job/workflow-loop.ts';
import { recalculateAllTenants } from '../resources/tenants/usage.ts';
import type { RunServices } from '../runs/run-services.ts';

export interface BackgroundLoop {
  name: string;
  /** Starts the loop; answers how to stop it. */
  start(services: RunServices): Promise<StopLoop>;
}

/**
 * Stops a started loop. A loop woken by events also answers `settle` (for tests, instead of fixed
 * sleeps): it wakes the loop and resolves once a round begun after the call has ended.
 */
export type StopLoop = (() => Promise<void>) & { settle?: () => Promise<void> };

const stoppable = (loop: { stop(): Promise<void>; settle(): Promise<void> }): StopLoop =>
  Object.assign(() => loop.stop(), { settle: () => loop.settle() });

/**
 * This node's Instance row, recorded now (the task manager places runs on it) and at every
 * heartbeat; nodes that went silent are marked unavailable and their runs queued again or failed,
 * and drained deprovisioned nodes removed (src/task-manager/node-health.ts).
 */
export const heartbeat: BackgroundLoop = {
  name: 'heartbeat',
  async start(services) {
    // With the manual projects' directories this node holds (src/projects/manual-dirs.ts), which the task manager places by.
    return stoppable(await startNodeHealth(services, () => recordManualDirectories(services.db, services, services.env.nodeName)));
  },
};

/** Places pending runs and runs those given to this node (woken by NOTIFY). */
export const dispatcher: BackgroundLoop = {
  name: 'dispatcher',
  async start(services) {
    return stoppable(await startDispatcher(services));
  },
};

/** Moves workflow jobs on: woken by NOTIFY when a node's run ends (naming its workflow job), a workflow job or approval is pending, or a run is canceled. */
export const workflows: BackgroundLoop = {
  name: 'workflows',
  async start(services) {
    const loop = await startWorkflowLoop(services);
    return () => loop.stop();
  },
};

const COMMIT_STATUS_MS = 1_000;

/** Posts the commit statuses of runs launched by webhooks (src/runs/webhooks/commit-status.ts), one round at a time. */
export const commitStatuses: BackgroundLoop = {
  name: 'commit statuses',
  async start(services) {
    let round: Promise<unknown> = Promise.resolve();
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      round = postCommitStatuses(services)
        .catch((err) => services.logger.error('commit statuses failed:', err instanceof Error ? err.message : err))
        .finally(() => { busy = false; });
    }, COMMIT_STATUS_MS);
    timer.unref();
    return async () => {
      clearInterval(timer);
      await round;
    };
  },
};

/** Sends queued notifications (woken by NOTIFY); what a stop leaves pending is sent after the next start. */
export const notificationSender: BackgroundLoop = {
  name: 'notifications',
  async start(services) {
    return stoppable(await startNotificationSender(services));
  },
};

/** Sends queued outbound webhook deliveries (woken by NOTIFY and when a retry falls due); what a stop leaves pending is sent after the next start. */
export const outboundWebhookSender: BackgroundLoop = {
  name: 'outbound webhooks',
  async start(services) {
    return stoppable(await startOutboundWebhookSender(services));
  },
};

/** Uploads saved policies to the policy engine and removes deleted ones, after commit (woken by NOTIFY and when a retry falls due). */
export const policyEngineSync: BackgroundLoop = {
  name: 'policy engine sync',
  async start(services) {
    return stoppable(await startPolicyEngineSync(services));
  },
};

/** Launches due schedules (woken at the earliest next_run and by NOTIFY when schedules change). */
export const scheduler: BackgroundLoop = {
  name: 'scheduler',
  async start(services) {
    return stoppable(await startScheduler(services));
  },
};

/** Takes the fact snapshots and drift of hosts whose facts jobs saved (woken by NOTIFY). */
export const factCapture: BackgroundLoop = {
  name: 'fact capture',
  async start(services) {
    return stoppable(await startCaptureLoop(services.db, services.logger, services.logShipper));
  },
};

/** Sends the activity stream entries this node records to the log aggregator, when its activity_stream logger is on (docs/logging.md). */
export const activityShipping: BackgroundLoop = {
  name: 'activity stream shipping',
  async start(services) {
    return stoppable(startActivityShipping(services.db, services.logShipper, services.env.nodeName, services.logger));
  },
};

const DAY_MS = 24 * 60 * 60_000;

/** A loop removing old rows once a day (and once a minute after start). */
function dailyRetention(name: string, prune: (services: RunServices) => Promise<unknown>): BackgroundLoop {
  return {
    name,
    async start(services) {
      const run = () => void prune(services).catch((err) => services.logger.error(`${name} failed:`, err instanceof Error ? err.message : err));
      const first = setTimeout(run, 60_000);
      first.unref();
      const timer = setInterval(run, DAY_MS);
      timer.unref();
      return async () => {
        clearTimeout(first);
        clearInterval(timer);
      };
    },
  };
}

/** Removes old fact snapshots. */
export const snapshotRetention = dailyRetention('fact snapshot retention', (services) => pruneFactSnapshots(services.db));

/** Removes old evaluated event logs. */
export const eventLogRetention = dailyRetention('event log retention', (services) => pruneEventLogs(services.db));

/**
 * AWX's cleanup_host_metrics and host_metric_summary_monthly periodic tasks, with AWX's default
 * thresholds, once a day: both are idempotent, so nodes running them alike change nothing more.
 */
export const hostMetricTasks = dailyRetention('host metrics', (services) =>
  services.db.transaction(async (tx) => {
    await cleanupHostMetrics(tx, { soft: DEFAULT_SOFT_THRESHOLD, hard: DEFAULT_HARD_THRESHOLD });
    await summarizeHostMetricsMonthly(tx, DEFAULT_HARD_THRESHOLD);
  }),
);

/** Evaluates the events the receiver stored and fires the rules they match (woken by NOTIFY), launching through the run kinds' eventRule launchers. */
export const eventEvaluation: BackgroundLoop = {
  name: 'event evaluation',
  async start(services) {
    return stoppable(await startEventEvaluation(services, edaLaunchers(services.runKinds)));
  },
};

const TENANT_USAGE_MS = 10 * 60_000;

/**
 * Recomputes every tenant's usage every 10 minutes (and a minute after start), so that hosts and
 * storage stay honest between the quota gate's own counts (docs/tenants.md#usage).
 */
export const tenantUsage: BackgroundLoop = {
  name: 'tenant usage',
  async start(services) {
    let round: Promise<unknown> = Promise.resolve();
    let busy = false;
    const run = () => {
      if (busy) return;
      busy = true;
      round = recalculateAllTenants(services.db, services.env.projectsRoot)
        .catch((err) => services.logger.error('tenant usage failed:', err instanceof Error ? err.message : err))
        .finally(() => { busy = false; });
    };
    const first = setTimeout(run, 60_000);
    first.unref();
    const timer = setInterval(run, TENANT_USAGE_MS);
    timer.unref();
    return async () => {
      clearTimeout(first);
      clearInterval(timer);
      await round;
    };
  },
};

export const LOOPS: readonly BackgroundLoop[] = [heartbeat, dispatcher, workflows, commitStatuses,
  notificationSender,
  outboundWebhookSender,
  policyEngineSync,
  scheduler,
  factCapture,
  activityShipping,
  snapshotRetention,
  eventEvaluation,
  eventLogRetention,
  tenantUsage,
  hostMetricTasks,
];
