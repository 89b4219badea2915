import type { RequestContext } from '../api/context.ts';
import type { Queryable, Row } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';

/** A gate's answer about one launch. */
export type Verdict =
  | { decision: 'allow' }
  | { decision: 'warn'; message: string }
  | { decision: 'deny'; status: number; message: string };

/** What a gate sees: who launches what, and the run as it would be queued (stored, not yet visible to anyone else). */
export interface GateInput {
  ctx: RequestContext;
  /** The run kind (job, ad_hoc_command, ...). */
  kind: string;
  /** The template launched (a job template, a project, an inventory source); null for ad hoc commands. */
  template: Row | null;
  run: UnifiedJobRow;
  /** How the run was started: manual, relaunch, callback, dependency, scheduled, webhook... */
  launchType: string;
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

/** The gates' outcome: the warnings of those that warned, or the first denial (later gates are not asked). */
export type GateOutcome = { denied: null; warnings: string[] } | { denied: { gate: string; status: number; message: string }; warnings: string[] };

export async function passGates(tx: Queryable, gates: readonly Gate[], launch: GateInput): Promise<GateOutcome> {
  const warnings: string[] = [];
  for (const gate of gates) {
    const verdict = await gate.check(tx, launch);
    if (verdict.decision === 'deny') return { denied: { gate: gate.name, status: verdict.status, message: verdict.message }, warnings };
    if (verdict.decision === 'warn') warnings.push(verdict.message);
  }
  return { denied: null, warnings };
}
