/**
 * The policy gate (docs/policy.md#at-launch): after a job, workflow job or ad hoc
 * command is stored and before it is queued, every enabled policy of its organization (and every
 * global one) that applies to what is launched is evaluated by the engine, all at once and each
 * within OPA_EVALUATION_TIMEOUT_MS. The organization's policy_enforcement caps each policy's own.
 */
import { actorId } from '../api/context.ts';
import type { Queryable } from '../db/database.ts';
import type { Gate, GateInput, Verdict } from '../runs/gates.ts';
import type { Tracing } from '../telemetry/tracing.ts';
import { contextDocument, launchPolicyOf } from './context.ts';
import { recordEvaluation, type DecisionRecord, type Evaluation } from './decisions.ts';
import { EngineError, engineOf, evaluate, type Engine } from './engine.ts';
import { parseVerdict, type Findings } from './verdict.ts';

type Mode = 'warn' | 'enforce';

interface ApplicablePolicy {
  id: number;
  name: string;
  package_path: string;
  enforcement: Mode;
}

type Outcome = { policy: ApplicablePolicy; findings: Findings } | { policy: ApplicablePolicy; unavailable: string };

export const DENIED = 'Policy denied launch.';
export const ENGINE_UNAVAILABLE = 'Policy engine unavailable: launch denied (OPA_FAIL_MODE is deny).';

/** An organization in warn never blocks; otherwise the policy's own mode holds. */
const effectiveMode = (organization: string, policy: Mode): Mode => (organization === 'warn' ? 'warn' : policy);

async function evaluateOne(engine: Engine, policy: ApplicablePolicy, context: unknown, tracing: Tracing): Promise<Outcome> {
  try {
    const result = await tracing.inSpan('policy engine evaluate', { 'drover.policy.id': policy.id, 'drover.policy.package': policy.package_path }, () => evaluate(engine, policy.package_path, context));
    return { policy, findings: parseVerdict(result, `Denied by policy "${policy.name}".`) };
  } catch (err) {
    if (err instanceof EngineError) return { policy, unavailable: err.message };
    throw err;
  }
}

/** One policy's part in the outcome: a decision (or none) and what it adds to the warnings and reasons. */
function judge(outcome: Outcome, organizationMode: string, failMode: unknown): { decision: 'warn' | 'deny' | null; messages: string[]; engineDown: boolean } {
  const mode = effectiveMode(organizationMode, outcome.policy.enforcement);
  if ('unavailable' in outcome) {
    const denies = failMode === 'deny' && mode === 'enforce';
    const message = `Policy engine unavailable (${outcome.unavailable})${denies ? '' : failMode === 'deny' ? '; launch allowed (deny in warn-only).' : '; launch allowed (OPA_FAIL_MODE is allow).'}`;
    return { decision: denies ? 'deny' : 'warn', messages: [message], engineDown: true };
  }
  const { denies, warnings } = outcome.findings;
  if (mode === 'warn') {
    const all = [...denies.map((d) => `${d} (deny in warn-only)`), ...warnings];
    return { decision: all.length ? 'warn' : null, messages: all, engineDown: false };
  }
  return { decision: denies.length ? 'deny' : warnings.length ? 'warn' : null, messages: [...denies, ...warnings], engineDown: false };
}

async function check(tx: Queryable, launch: GateInput): Promise<Verdict> {
  const { ctx, run } = launch;
  const settings = ctx.service.settings;
  const launchPolicy = launchPolicyOf(launch.runKind, run);
  if (!settings.get('OPA_ENABLED') || !launchPolicy || !run.organization_id) return { decision: 'allow' };
  const { resourceType } = launchPolicy;
  const [organization] = await tx.query<{ id: number; name: string; policy_enforcement: string }>(
    'SELECT id, name, policy_enforcement FROM organizations WHERE id = $1', [run.organization_id],
  );
  if (!organization || organization.policy_enforcement === 'none') return { decision: 'allow' };
  const policies = await tx.query<ApplicablePolicy>(
    `SELECT id, name, package_path, enforcement FROM policies
     WHERE enabled AND enforcement <> 'none' AND (organization_id IS NULL OR organization_id = $1)
       AND (applies_to = '[]'::jsonb OR applies_to @> jsonb_build_array($2::text)) ORDER BY id`,
    [organization.id, resourceType],
  );
  if (!policies.length) return { decision: 'allow' };

  const context = await contextDocument(tx, launch, launchPolicy, organization);
  const engine = engineOf(settings);
  const outcomes = await Promise.all(policies.map((policy) => evaluateOne(engine, policy, context, launch.tracing)));
  const failMode = settings.get('OPA_FAIL_MODE');
  const judged = outcomes.map((outcome) => ({ outcome, ...judge(outcome, organization.policy_enforcement, failMode) }));
  const decisions: DecisionRecord[] = [];
  const reasons: string[] = [];
  const warnings: string[] = [];
  for (const { outcome, decision, messages } of judged) {
    if (!decision) continue;
    (decision === 'deny' ? reasons : warnings).push(...messages.map((m) => `${outcome.policy.name}: ${m}`));
    decisions.push({
      decision, policy_id: outcome.policy.id, policy_name: outcome.policy.name, organization_id: organization.id,
      unified_job_id: run.id, unified_job_template_id: run.unified_job_template_id, resource_type: resourceType,
      user_id: actorId(ctx), message: messages.join('\n'), context,
    });
  }
  const evaluation: Evaluation = {
    ctx,
    evaluated: judged.filter((j) => !j.engineDown).map((j) => j.outcome.policy.id),
    triggered: judged.filter((j) => !j.engineDown && j.decision).map((j) => j.outcome.policy.id),
    decisions,
  };
  const record = (q: Queryable) => recordEvaluation(q, evaluation);
  if (reasons.length) {
    const detail = judged.some((j) => j.decision === 'deny' && !j.engineDown) ? DENIED : ENGINE_UNAVAILABLE;
    evaluation.refusal = { target: { type: resourceType, id: Number(context.resource_id), name: String(context.resource_name) }, reasons };
    return { decision: 'deny', status: 403, message: detail, body: { detail, reasons }, record };
  }
  if (warnings.length) return { decision: 'warn', message: warnings.map((w) => `Policy warning: ${w}`).join('\n'), record };
  return { decision: 'allow', record };
}

export const policyGate: Gate = { name: 'policy', check };
