import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Services } from '../api/context.ts';
import type { Row } from '../db/database.ts';
import { baseEnvironment, execProcess } from './exec.ts';
import { OutputWriter } from './output.ts';
import { registeredKinds, runnerFor, type RunContext } from './runners.ts';
import { finishRun, markRunning } from './unified-jobs.ts';
import { defaultExecutionEnvironmentId } from '../resources/execution-environments/default-environment.ts';

const POLL_MS = 1_000;
const CANCEL_POLL_MS = 500;
const MAX_PARALLEL_RUNS = 4;
const TIMEOUT_EXPLANATION = 'Job terminated due to timeout';

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
 * Runs pending project and inventory updates on this node: each is claimed with
 * FOR UPDATE SKIP LOCKED (so nodes sharing a database never take the same one), waits behind a
 * running run of the same template, and is run by its kind's runner.
 */
export function startDispatcher(services: Services): Dispatcher {
  const { db, env } = services;
  const running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  let stopped = false;
  let scanning: Promise<void> | null = null;
  let again = false;

  const claim = async (limit: number): Promise<Row[]> =>
    db.query(
      `UPDATE unified_jobs SET status = 'waiting', execution_node = $1, controller_node = $1, modified = now()
       WHERE id IN (
         SELECT u.id FROM unified_jobs u
         WHERE u.status = 'pending' AND u.kind = ANY($2::text[])
           AND (u.allow_simultaneous OR u.unified_job_template_id IS NULL OR NOT EXISTS (
                SELECT 1 FROM unified_jobs o WHERE o.unified_job_template_id = u.unified_job_template_id
                AND o.kind = u.kind AND o.status IN ('waiting', 'running')))
         ORDER BY u.id LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [env.nodeName, registeredKinds(), limit],
    );

  const scan = async () => {
    do {
      again = false;
      const free = MAX_PARALLEL_RUNS - running.size;
      if (stopped || free <= 0) return;
      // One per template per scan: a second pending update of the same template waits its turn.
      const claimed = await claim(free);
      const seen = new Set<string>();
      for (const job of claimed) {
        const key = `${job.kind}:${job.unified_job_template_id}`;
        if (seen.has(key) && !job.allow_simultaneous && job.unified_job_template_id !== null) {
          await db.query(`UPDATE unified_jobs SET status = 'pending', execution_node = '', controller_node = '' WHERE id = $1`, [job.id]);
          again = true;
          continue;
        }
        seen.add(key);
        start(job);
      }
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
    const done = execute(services, job, controller).finally(() => {
      running.delete(job.id);
      wake();
    });
    running.set(job.id, { controller, done });
  };

  const poller = setInterval(wake, POLL_MS);
  poller.unref();
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
      clearInterval(cancelPoller);
      for (const r of running.values()) r.controller.abort('shutdown');
      await Promise.all([scanning, ...[...running.values()].map((r) => r.done)]);
    },
  };
  dispatchers.add(dispatcher);
  queueMicrotask(wake);
  return dispatcher;
}

async function execute(services: Services, claimed: Row, controller: AbortController): Promise<void> {
  const { db } = services;
  const registration = runnerFor(claimed.kind)!;
  const environment = claimed.execution_environment_id ?? (await defaultExecutionEnvironmentId(db, services.settings.get('DEFAULT_EXECUTION_ENVIRONMENT')));
  const job = await db.transaction((tx) => markRunning(tx, claimed, environment));
  if (!job) return;
  const output = new OutputWriter(db, job.id);
  if (environment) {
    const [ee] = await db.query('SELECT name FROM execution_environments WHERE id = $1', [environment]);
    if (ee) await output.write(`Execution environment: ${ee.name} (run with this node's Ansible runtime)\n`);
  }
  const privateDir = await mkdtemp(path.join(tmpdir(), `drover-run-${job.id}-`));
  const timeoutSeconds = job.timeout > 0 ? job.timeout : Number(registration.defaultTimeoutSetting ? services.settings.get(registration.defaultTimeoutSetting) ?? 0 : 0);
  const timer = timeoutSeconds > 0 ? setTimeout(() => controller.abort('timeout'), timeoutSeconds * 1000) : null;
  const taskEnv = (services.settings.get('SVC_TASK_ENV') ?? {}) as Record<string, string>;
  const run: RunContext = {
    db,
    services,
    signal: controller.signal,
    privateDir,
    timeoutSeconds,
    output: (text) => output.write(text.endsWith('\n') ? text : `${text}\n`),
    position: () => output.position(),
    advance: (counter, line) => output.advance(counter, line),
    exec: (command, args, options = {}) =>
      execProcess(command, args, { ...options, env: baseEnvironment({ ...taskEnv, ...options.env }) }, controller.signal, (line) =>
        output.write(`${line}\n`),
      ),
  };
  let finish: Parameters<typeof finishRun>[2];
  try {
    const outcome = await registration.run(job, run);
    finish = { status: outcome.status, explanation: outcome.explanation, updates: outcome.updates };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    finish = { status: 'error', explanation: `The run could not complete: ${message}`, traceback: err instanceof Error ? err.stack ?? message : message };
  } finally {
    if (timer) clearTimeout(timer);
    await rm(privateDir, { recursive: true, force: true }).catch(() => undefined);
  }
  const reason = controller.signal.aborted ? controller.signal.reason : null;
  if (reason === 'timeout') finish = { ...finish, status: 'failed', explanation: TIMEOUT_EXPLANATION };
  else if (reason === 'canceled') finish = { ...finish, status: 'canceled', explanation: finish.explanation || 'The run was canceled.' };
  else if (reason === 'shutdown') finish = { ...finish, status: 'failed', explanation: 'The run was stopped because its node shut down.' };
  if (finish.status !== 'successful' && finish.explanation) await output.write(`${finish.explanation}\n`).catch(() => undefined);
  await output.flush(true);
  try {
    await db.transaction((tx) => finishRun(tx, job, { ...finish, emittedEvents: output.eventCount }));
  } catch (err) {
    // Never leave a run "running": record the failure to store its outcome.
    const message = err instanceof Error ? err.message : String(err);
    await db.query(
      `UPDATE unified_jobs SET status = 'error', failed = true, finished = now(), event_processing_finished = true,
         job_explanation = $2, modified = now() WHERE id = $1`,
      [job.id, `The run's outcome (${finish.status}) could not be stored: ${message}`],
    );
  }
}

const REAPED = 'Task was marked as running at system start up. The system must have not shut down properly, so it has been marked as failed.';

/** At start, runs this node left waiting or running were cut off: they are marked failed (AWX's reaper). */
export async function reapOrphanedRuns(services: Services): Promise<number> {
  const { db, env } = services;
  const orphans = await db.query(`SELECT * FROM unified_jobs WHERE execution_node = $1 AND status IN ('waiting', 'running')`, [env.nodeName]);
  for (const job of orphans) {
    await db.transaction((tx) => finishRun(tx, job, { status: 'failed', explanation: REAPED, emittedEvents: job.emitted_events }));
  }
  return orphans.length;
}
