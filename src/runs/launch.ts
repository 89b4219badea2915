/**
 * The launch service: every way of starting a run (launch, relaunch, callback, update/, ad hoc,
 * and later schedules, workflow nodes and event rules) comes through here. It knows nothing about
 * HTTP: it answers the run it queued, or why it refused.
 */
import { ApiError } from '../api/errors.ts';
import type { RequestContext } from '../api/context.ts';
import type { Database, Queryable, Row } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import { passGates, type Gate } from './gates.ts';
import { insertRun, queueRun } from './lifecycle.ts';
import type { RunKindRef } from './run-kind.ts';

/** What a launch makes: the new run's columns and what belongs to it. */
export interface RunPlan<Template extends Row = Row> {
  /** Column values of the new run (its kind, status and creator are added). */
  values: Record<string, unknown>;
  /** Stores what belongs to the run (credentials, labels...) once it exists, before it is queued. */
  link?(tx: Queryable, run: UnifiedJobRow): Promise<void>;
  /** Input the template does not let the launcher choose, reported back as AWX does (ignored_fields). */
  ignored?: Record<string, unknown>;
  /** The template as the plan read it, when the launch was not given it (a relaunch finds the job's). */
  template?: Template;
}

/**
 * How one kind's template becomes a run. `plan` runs inside the launch's transaction: it checks
 * that the caller may launch, validates the input and throws a typed error (403, 400) to refuse.
 */
export interface Launcher<Input, Template extends Row = Row> {
  kind: RunKindRef;
  plan(tx: Queryable, ctx: RequestContext, template: Template | null, input: Input): Promise<RunPlan<Template>>;
}

/** Why a launch did not happen: a status and a body in the API's error shapes. */
export interface Refusal {
  status: number;
  body: Record<string, unknown>;
}

export type LaunchResult =
  | { ok: true; run: UnifiedJobRow; ignored: Record<string, unknown>; warnings: string[] }
  | { ok: false; refusal: Refusal };

export interface LaunchService {
  launch<Input, Template extends Row>(ctx: RequestContext, launcher: Launcher<Input, Template>, template: Template | null, input: Input): Promise<LaunchResult>;
}

/**
 * Each launch is one transaction: plan (permission, prompts, passwords), store the run, pass the
 * gates in their order, then queue it. A refusal anywhere rolls everything back, so a denied
 * launch leaves no run behind; warnings are kept in the run's explanation.
 */
export function createLaunchService(db: Database, gates: readonly Gate[]): LaunchService {
  return {
    async launch(ctx, launcher, template, input) {
      let ignored: Record<string, unknown> = {};
      let warnings: string[] = [];
      try {
        const run = await db.transaction(async (tx) => {
          const plan = await launcher.plan(tx, ctx, template, input);
          ignored = plan.ignored ?? {};
          let row = await insertRun(tx, ctx, launcher.kind, plan.values);
          const gated = await passGates(tx, gates, { ctx, kind: launcher.kind.name, template: plan.template ?? template, run: row, launchType: String(row.launch_type) });
          if (gated.denied) throw new ApiError(gated.denied.status, { detail: gated.denied.message });
          warnings = gated.warnings;
          if (warnings.length) {
            [row] = await tx.query<UnifiedJobRow>('UPDATE unified_jobs SET job_explanation = $2 WHERE id = $1 RETURNING *', [row.id, warnings.join('\n')]);
          }
          await queueRun(tx, launcher.kind, row, plan.link && ((created) => plan.link!(tx, created)));
          return row;
        });
        return { ok: true, run, ignored, warnings };
      } catch (err) {
        if (err instanceof ApiError) return { ok: false, refusal: { status: err.status, body: err.body as Record<string, unknown> } };
        throw err;
      }
    },
  };
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
