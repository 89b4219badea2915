import type { LaunchTrigger, RunKind } from './run-kind.ts';
import type { RequestContext } from '../api/context.ts';
import type { Database, Queryable, Row } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import { timedGate } from '../telemetry/metrics.ts';
import type { Tracing } from '../telemetry/tracing.ts';

/**
 * Stores what a gate found (a policy's decisions): run in the launch's transaction when the launch
 * goes on, and in a transaction of its own after the rollback when a gate refused it, so a record
 * of a refusal survives the refusal.
 */
export type GateRecord = (q: Queryable) => Promise<void>;

/** A gate's answer about one launch; a denial may give the whole body of the error (else {detail: message}). */
export type Verdict = (
  | { decision: 'allow' }
  /**
   * Only when the launch may step out (GateInput.mayStepOut): work too slow for a transaction (a
   * scan), done after the launch rolls back; the launch is then tried again once, with what the
   * work left in `scratch`.
   */
  | { decision: 'prepare'; prepare: (db: Database) => Promise<void> }
  | { decision: 'warn'; message: string }
  | { decision: 'deny'; status: number; message: string; body?: Record<string, unknown> }
) & { record?: GateRecord };

/** What a gate sees: who launches what, and the run as it would be queued (stored, not yet visible to anyone else). */
export interface GateInput {
  ctx: RequestContext;
  /** The run kind's name (job, ad_hoc_command, ...). */
  kind: string;
  /** The run kind itself: what it is to policies and quotas. */
  runKind: RunKind;
  /** The template launched (a job template, a project, an inventory source); null for ad hoc commands. */
  template: Row | null;
  run: UnifiedJobRow;
  /** How the run was started: manual, relaunch, callback, dependency, scheduled, webhook... */
  launchType: string;
  /** What started it: its launch type, or what the plan says beyond it (a service catalog request). */
  trigger: LaunchTrigger;
  /** The launch is not inside another transaction and has not stepped out yet: a gate may answer `prepare`. */
  mayStepOut: boolean;
  /** Kept across the launch's second try: what a gate's preparation found. */
  scratch: Map<string, unknown>;
  /** The service's traces: each gate runs in a span of its own, a child of the launch's; a gate's slow calls (the policy engine, a scan) get theirs. */
  tracing: Tracing;
}

/**
 * A check every launch passes through in a fixed order (quotas, policy, scanners): it may allow,
 * warn (the run goes on, the message is kept with it) or deny (nothing is left of the run).
 * Gates run inside the launch's transaction: keep them quick, and bound any call they make.
 */
export interface Gate {
  name: string;
  check(tx: Queryable, launch: GateInput): Promise<Verdict>;
}

export interface Denial {
  gate: string;
  status: number;
  body: Record<string, unknown>;
}

/**
 * The gates' outcome: the warnings of those that warned, or the first denial (later gates are not
 * asked), and the records of every gate asked.
 */
export type GateOutcome = { denied: Denial | null; warnings: string[]; records: GateRecord[]; prepare?: (db: Database) => Promise<void> };

export async function passGates(tx: Queryable, gates: readonly Gate[], launch: GateInput): Promise<GateOutcome> {
  const warnings: string[] = [];
  const records: GateRecord[] = [];
  for (const gate of gates) {
    const verdict = await launch.tracing.inSpan(`gate ${gate.name}`, { 'drover.gate': gate.name }, async (span) => {
      const answer = await timedGate(launch.ctx.service, gate.name, () => gate.check(tx, launch));
      span.set({ 'drover.gate.decision': answer.decision });
      return answer;
    });
    if (verdict.decision === 'prepare') {
      if (!launch.mayStepOut) throw new Error(`The ${gate.name} gate asked to prepare a launch that cannot step out of its transaction.`);
      return { denied: null, warnings, records: [], prepare: verdict.prepare };
    }
    if (verdict.record) records.push(verdict.record);
    if (verdict.decision === 'deny') {
      return { denied: { gate: gate.name, status: verdict.status, body: verdict.body ?? { detail: verdict.message } }, warnings, records };
    }
    if (verdict.decision === 'warn') warnings.push(verdict.message);
  }
  return { denied: null, warnings, records };
}
