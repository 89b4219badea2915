import { rm } from 'node:fs/promises';
import type { ExecutionEnvironmentRow, UnifiedJobRow } from '../db/tables.ts';
import { baseEnvironment, execProcess } from '../runs/exec.ts';
import { OutputWriter } from './output.ts';
import { makeRunDirectory, recordRunProcess } from './run-directories.ts';
import { runInvocation } from '../runtime/sandbox-command.ts';
import type { RunContext } from '../runs/run-kind.ts';
import { explanationAfterWarningsSql, finishRun, markRunning, type Finish } from '../runs/lifecycle.ts';
import { publishFinal } from '../live/notices.ts';
import { defaultExecutionEnvironmentId } from '../resources/execution-environments/default-environment.ts';
import type { RunServices } from '../runs/run-services.ts';
import type { TracedSpan } from '../telemetry/tracing.ts';

const TIMEOUT_EXPLANATION = 'Job terminated due to timeout';

/**
 * Runs one run this node was given: marks it running, runs its kind's runner in a fresh private
 * directory (removed whatever happens), ends it on timeout or cancel, and stores the outcome.
 */
export async function executeRun(services: RunServices, claimed: UnifiedJobRow, controller: AbortController): Promise<void> {
  // The run's span continues its launch's trace, else starts one.
  const launchedIn = claimed.launch_traceparent;
  const span = services.tracing.start(`run ${claimed.kind}`, {
    'drover.job.id': claimed.id,
    'drover.job.kind': claimed.kind,
    'drover.job.template_id': claimed.unified_job_template_id,
    'drover.node': services.env.nodeName,
    'drover.launch.type': claimed.launch_type,
  }, { parent: launchedIn || null });
  try {
    await services.tracing.within(span, () => runClaimed(services, claimed, controller, span));
  } catch (err) {
    span.fail(err);
    throw err;
  } finally {
    span.end();
  }
}

async function runClaimed(services: RunServices, claimed: UnifiedJobRow, controller: AbortController, span: TracedSpan): Promise<void> {
  const { db } = services;
  const registration = services.runKinds.get(claimed.kind);
  const environment = claimed.execution_environment_id ?? (await defaultExecutionEnvironmentId(db, services.settings.get('DEFAULT_EXECUTION_ENVIRONMENT')));
  const job = await db.transaction((tx) => markRunning(tx, registration, claimed, environment));
  if (!job) return span.set({ 'drover.job.status': 'not started' });
  // A cancel that committed before the run started (one after it reaches the dispatcher's listener).
  if (job.cancel_flag) controller.abort('canceled');
  const output = new OutputWriter(db, job.id);
  if (environment) {
    const [ee] = await db.query<Pick<ExecutionEnvironmentRow, 'name'>>('SELECT name FROM execution_environments WHERE id = $1', [environment]);
    if (ee) await output.write(`Execution environment: ${ee.name} (run with this node's Ansible runtime)\n`);
  }
  const privateDir = await makeRunDirectory(services.env, job.id);
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
    exec: async (command, args, options = {}) => {
      // W3C trace context: what the run's processes (a playbook's own calls) send joins the run's trace.
      const env = baseEnvironment({ ...taskEnv, ...options.env, ...(span.traceparent && { TRACEPARENT: span.traceparent }) });
      const started = await runInvocation(services, privateDir, command, args, options, env);
      const onSpawn = (pid: number) => void recordRunProcess(privateDir, pid).catch(() => undefined);
      return execProcess(started.command, started.args, { ...options, cwd: started.cwd, env, onSpawn }, controller.signal, (line) => output.write(`${line}\n`));
    },
  };
  let finish: Finish;
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
  if (reason === 'ended elsewhere') {
    await output.flush(true);
    return span.set({ 'drover.job.status': 'ended elsewhere', 'drover.job.events': output.eventCount });
  }
  if (reason === 'timeout') finish = { ...finish, status: 'failed', explanation: TIMEOUT_EXPLANATION };
  else if (reason === 'canceled') finish = { ...finish, status: 'canceled', explanation: finish.explanation || 'The run was canceled.' };
  else if (reason === 'shutdown') finish = { ...finish, status: 'failed', explanation: 'The run was stopped because its node shut down.' };
  if (finish.status !== 'successful' && finish.explanation) await output.write(`${finish.explanation}\n`).catch(() => undefined);
  await output.flush(true);
  span.set({ 'drover.job.status': finish.status, 'drover.job.events': output.eventCount });
  if (finish.status === 'error' || finish.status === 'failed') span.fail(finish.explanation || finish.status);
  try {
    await db.transaction((tx) => finishRun(tx, services.runKinds, job, { ...finish, emittedEvents: output.eventCount }));
  } catch (err) {
    // Never leave a run "running": record the failure to store its outcome.
    const message = err instanceof Error ? err.message : String(err);
    const [row] = await db.query<UnifiedJobRow>(
      `UPDATE unified_jobs SET status = 'error', failed = true, finished = now(), event_processing_finished = true,
         job_explanation = ${explanationAfterWarningsSql('$2::text')}, modified = now() WHERE id = $1 RETURNING *`,
      [job.id, `The run's outcome (${finish.status}) could not be stored: ${message}`],
    );
    if (row) await publishFinal(db, row).catch(() => undefined);
  }
}
