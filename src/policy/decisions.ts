/** What an evaluation leaves behind: decisions for the policies that warned or denied, and each policy's counters. */
import { recordAudit } from '../audit/record.ts';
import type { RequestContext } from '../api/context.ts';
import type { Queryable } from '../db/database.ts';

export interface DecisionRecord {
  decision: 'warn' | 'deny';
  policy_id: number;
  policy_name: string;
  organization_id: number;
  unified_job_id: number;
  unified_job_template_id: number | null;
  resource_type: string;
  user_id: number | null;
  message: string;
  context: Record<string, unknown>;
}

export interface Evaluation {
  ctx: RequestContext;
  /** Policies the engine answered for. */
  evaluated: number[];
  /** Policies whose verdict warned or denied. */
  triggered: number[];
  decisions: DecisionRecord[];
  /** Set when the launch was refused: the audit event's facts. */
  refusal?: { target: { type: string; id: number; name: string }; reasons: string[] };
}

export async function recordEvaluation(q: Queryable, evaluation: Evaluation): Promise<void> {
  const { evaluated, triggered, decisions } = evaluation;
  if (evaluated.length) {
    await q.query(
      `UPDATE policies SET last_evaluated_at = now(),
         trigger_count = trigger_count + (CASE WHEN id = ANY($2::int[]) THEN 1 ELSE 0 END),
         last_triggered_at = CASE WHEN id = ANY($2::int[]) THEN now() ELSE last_triggered_at END
       WHERE id = ANY($1::int[])`,
      [evaluated, triggered],
    );
  }
  if (decisions.length) {
    // The policy may have been deleted while the engine answered: the decision keeps its name.
    // The launching user made the decision: its user, created_by and modified_by.
    await q.query(
      `INSERT INTO policy_decisions (decision, policy_id, policy_name, organization_id, unified_job_id, unified_job_template_id, resource_type, user_id, message, context,
         created_by_id, modified_by_id)
       SELECT d.decision, p.id, d.policy_name, d.organization_id, d.unified_job_id, d.unified_job_template_id, d.resource_type, u.id, d.message, d.context, u.id, u.id
       FROM jsonb_to_recordset($1::jsonb) AS d(decision text, policy_id integer, policy_name text, organization_id integer, unified_job_id integer,
         unified_job_template_id integer, resource_type text, user_id integer, message text, context jsonb)
       LEFT JOIN policies p ON p.id = d.policy_id LEFT JOIN users u ON u.id = d.user_id`,
      [JSON.stringify(decisions)],
    );
  }
  if (evaluation.refusal) {
    await recordAudit(q, {
      type: 'policy.launch_denied', outcome: 'denied', ctx: evaluation.ctx, target: evaluation.refusal.target,
      client: { remoteAddr: evaluation.ctx.clientIp },
      detail: { unified_job_id: decisions[0]?.unified_job_id ?? null, policies: decisions.filter((d) => d.decision === 'deny').map((d) => d.policy_name), reasons: evaluation.refusal.reasons },
    });
  }
}
