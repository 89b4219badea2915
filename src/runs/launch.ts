/**
 * The launch service: every way of starting a run (launch, relaunch, callback, update/, ad hoc,
 * and later schedules, workflow nodes and event rules) comes through here. It knows nothing about
 * HTTP: it answers the run it queued, or why it refused.
 */
import type { RunKinds } from './run-kind.ts';
import { ApiError } from '../api/errors.ts';
import type { RequestContext } from '../api/context.ts';
import type { Database, Queryable, Row } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import { passGates, type Gate, type GateInput, type GateRecord } from './gates.ts';
import { insertRun, insertRuns, queueRun, queueRuns } from './lifecycle.ts';
import type { Launcher, RunPlan } from './run-kind.ts';
import type { LaunchResult, LaunchService } from './run-services.ts';
import { timedLaunch } from '../telemetry/metrics.ts';
import type { TracedSpan, Tracing } from '../telemetry/tracing.ts';

// The types of a launch are declared with the run kinds (run-kind.ts) and run services (run-services.ts).
export type { Launcher, RunPlan } from './run-kind.ts';
export type { LaunchResult, LaunchService, Refusal } from './run-services.ts';

/** A launch a gate refused, with what the gates asked want stored once the launch has rolled back. */
class GateRefusal extends ApiError {
  constructor(status: number, body: Record<string, unknown>, readonly records: GateRecord[]) {
    super(status, body);
  }
}

/** A gate needs work done outside the transaction (GateOutcome.prepare): rolled back, prepared, tried again. */
class StepOut extends Error {
  constructor(readonly prepare: (db: Database) => Promise<void>) {
    super('A gate prepares the launch outside its transaction.');
  }
}

/** Whether a gate may step out of this launch's transaction, and what its preparation left for the second try. */
interface Attempt {
  mayStepOut: boolean;
  scratch: Map<string, unknown>;
}

const WITHIN: () => Attempt = () => ({ mayStepOut: false, scratch: new Map() });

/** A launch of a group that needs the one-by-one path (a gate warned or refused). */
class NotTogether extends Error {}

const storeRecords = async (q: Queryable, records: readonly GateRecord[]) => {
  for (const record of records) await record(q);
};

/**
 * Each launch is one transaction: plan (permission, prompts, passwords), store the run, pass the
 * gates in their order, then queue it. A refusal anywhere rolls everything back, so a denied
 * launch leaves no run behind; warnings are kept in the run's launch_warnings and explanation.
 * A gate with slow work to do (a scan) has it done between two tries of a launch that is not
 * inside another transaction; inside one, it must do it there.
 */
export function createLaunchService(db: Database, gates: readonly Gate[], runKinds: RunKinds, tracing: Tracing): LaunchService {
  /** What the gates see of a stored run: who launches what, and what started it. */
  const gateInput = <Template extends Row>(ctx: RequestContext, launcher: Launcher<never, Template>, plan: RunPlan<Template>, template: Template | null, run: UnifiedJobRow, attempt: Attempt): GateInput => ({
    ctx, kind: launcher.kind.name, runKind: runKinds.get(launcher.kind.name), template: plan.template ?? template, run,
    launchType: String(run.launch_type), trigger: plan.trigger ?? { type: String(run.launch_type) }, ...attempt, tracing,
  });
  /** A run's columns, with the launch's trace context: the run's span continues the launch's trace (docs/observability.md). */
  const withTraceparent = (values: Record<string, unknown>): Record<string, unknown> => {
    const traceparent = tracing.activeTraceparent();
    return traceparent ? { ...values, launch_traceparent: traceparent } : values;
  };
  /** Plan, store, gate and queue one run in `tx`; throws an ApiError to refuse. */
  async function launchIn<Input, Template extends Row>(tx: Queryable, ctx: RequestContext, launcher: Launcher<Input, Template>, template: Template | null, input: Input, attempt: Attempt) {
    const plan = await launcher.plan(tx, ctx, template, input);
    let row = await insertRun(tx, ctx, launcher.kind, withTraceparent(plan.values));
    // What belongs to the run (its credentials) is stored before the gates, which look at it.
    await plan.link?.(tx, row);
    const gated = await passGates(tx, gates, gateInput(ctx, launcher, plan, template, row, attempt));
    if (gated.prepare) throw new StepOut(gated.prepare);
    if (gated.denied) throw new GateRefusal(gated.denied.status, gated.denied.body, gated.records);
    if (gated.warnings.length) {
      const warnings = gated.warnings.join('\n');
      [row] = await tx.query<UnifiedJobRow>('UPDATE unified_jobs SET launch_warnings = $2, job_explanation = $2 WHERE id = $1 RETURNING *', [row.id, warnings]);
    }
    await storeRecords(tx, gated.records);
    await queueRun(tx, launcher.kind, row);
    return { ok: true as const, run: row, ignored: plan.ignored ?? {}, warnings: gated.warnings };
  }
  const refusal = (err: unknown): LaunchResult => {
    if (err instanceof ApiError) return { ok: false, refusal: { status: err.status, body: err.body as Record<string, unknown> } };
    throw err;
  };
  /**
   * launchIn for a group: each input planned (a plan's refusal answers that input), the runs stored
   * in one statement and queued in one. A gate that does not simply allow throws NotTogether.
   */
  async function launchAllIn<Input, Template extends Row>(
    tx: Queryable, ctx: RequestContext, launcher: Launcher<Input, Template>, template: Template | null, inputs: readonly Input[],
  ): Promise<LaunchResult[]> {
    const results: LaunchResult[] = [];
    const planned: { at: number; plan: RunPlan<Template> }[] = [];
    for (const [at, input] of inputs.entries()) {
      try {
        planned.push({ at, plan: await launcher.plan(tx, ctx, template, input) });
      } catch (err) {
        results[at] = refusal(err);
      }
    }
    const rows = planned.length ? await insertRuns(tx, ctx, launcher.kind, planned.map((p) => withTraceparent(p.plan.values))) : [];
    for (const [i, { at, plan }] of planned.entries()) {
      await plan.link?.(tx, rows[i]);
      const gated = await passGates(tx, gates, gateInput(ctx, launcher, plan, template, rows[i], WITHIN()));
      if (gated.denied || gated.warnings.length) throw new NotTogether();
      await storeRecords(tx, gated.records);
      results[at] = { ok: true, run: rows[i], ignored: plan.ignored ?? {}, warnings: [] };
    }
    await queueRuns(tx, launcher.kind, rows);
    return results;
  }
  /** The launch's span: what is launched, by whom, and how it ended (the run, or the refusal's status). */
  const traced = <Template extends Row>(ctx: RequestContext, launcher: Launcher<never, Template>, template: Template | null, go: () => Promise<LaunchResult>) =>
    tracing.inSpan('launch', {
      'drover.job.kind': launcher.kind.name,
      'drover.job.template_id': template && typeof template.id === 'number' ? template.id : undefined,
      'user.id': ctx.user?.id || undefined,
    }, async (span) => noteOutcome(span, await go()));
  async function launchWithin<Input, Template extends Row>(tx: Queryable, ctx: RequestContext, launcher: Launcher<Input, Template>, template: Template | null, input: Input): Promise<LaunchResult> {
    return traced(ctx, launcher, template, () => launchWithinUntraced(tx, ctx, launcher, template, input));
  }
  async function launchWithinUntraced<Input, Template extends Row>(tx: Queryable, ctx: RequestContext, launcher: Launcher<Input, Template>, template: Template | null, input: Input): Promise<LaunchResult> {
    await tx.query('SAVEPOINT drover_launch');
    try {
      const launched = await launchIn(tx, ctx, launcher, template, input, WITHIN());
      await tx.query('RELEASE SAVEPOINT drover_launch');
      return launched;
    } catch (err) {
      await tx.query('ROLLBACK TO SAVEPOINT drover_launch');
      if (err instanceof GateRefusal) await storeRecords(tx, err.records);
      return refusal(err);
    }
  }
  return timed({
    launch: (ctx, launcher, template, input) => traced(ctx, launcher, template, async () => {
      const attempt: Attempt = { mayStepOut: true, scratch: new Map() };
      for (;;) {
        try {
          return await db.transaction((tx) => launchIn(tx, ctx, launcher, template, input, attempt));
        } catch (err) {
          if (err instanceof StepOut && attempt.mayStepOut) {
            // Slow work (a scan) is done with no transaction open, then the launch is tried again, once.
            await tracing.inSpan('launch preparation', {}, () => err.prepare(db));
            attempt.mayStepOut = false;
            continue;
          }
          if (err instanceof GateRefusal && err.records.length) await db.transaction((tx) => storeRecords(tx, err.records));
          return refusal(err);
        }
      }
    }),
    launchWithin,
    launchAllWithin: (tx, ctx, launcher, template, inputs) => tracing.inSpan('launch group', { 'drover.job.kind': launcher.kind.name, 'drover.launch.count': inputs.length }, async () => {
      if (inputs.length > 1) {
        await tx.query('SAVEPOINT drover_launch_all');
        try {
          const launched = await launchAllIn(tx, ctx, launcher, template, inputs);
          await tx.query('RELEASE SAVEPOINT drover_launch_all');
          return launched;
        } catch {
          // A gate had more to say than allow, or a statement failed: one by one, each answered on its own.
          await tx.query('ROLLBACK TO SAVEPOINT drover_launch_all');
        }
      }
      const launched: LaunchResult[] = [];
      for (const input of inputs) {
        try {
          launched.push(await launchWithin(tx, ctx, launcher, template, input));
        } catch (err) {
          // Rolled back to its savepoint: the others go on.
          launched.push({ ok: false, refusal: { status: 500, body: { detail: `The launch failed: ${err instanceof Error ? err.message : String(err)}` } } });
        }
      }
      return launched;
    }),
  });
}

/** Each launch and launch within a transaction timed into the metrics of the service it reaches (docs/observability.md#metrics). */
function timed(launches: LaunchService): LaunchService {
  return {
    ...launches,
    launch: (ctx, launcher, template, input) => timedLaunch(ctx.service, launcher.kind.name, () => launches.launch(ctx, launcher, template, input)),
    launchWithin: (tx, ctx, launcher, template, input) => timedLaunch(ctx.service, launcher.kind.name, () => launches.launchWithin(tx, ctx, launcher, template, input)),
  };
}

function noteOutcome(span: TracedSpan, result: LaunchResult): LaunchResult {
  if (result.ok) span.set({ 'drover.job.id': result.run.id, 'drover.launch.outcome': 'queued' });
  else span.set({ 'drover.launch.outcome': 'refused', 'drover.launch.refusal_status': result.refusal.status });
  return result;
}

export type Launched = Extract<LaunchResult, { ok: true }>;

/** For routes: launches, and throws a refusal as the API error it answers with. */
export async function launchOrRefuse<Input, Template extends Row>(
  launches: LaunchService, ctx: RequestContext, launcher: Launcher<Input, Template>, template: Template | null, input: Input,
): Promise<Launched> {
  const launched = await launches.launch(ctx, launcher, template, input);
  if (!launched.ok) throw new ApiError(launched.refusal.status, launched.refusal.body);
  return launched;
}
