/**
 * Evaluates received events (docs/event-driven.md#evaluation gives the statuses), a
 * batch at a time, oldest first: the batch's conditions are evaluated in the sandbox together, one
 * message per organization (each event's up to the first that does not hold), then
 * one transaction locks the logs still received (SKIP LOCKED), fires the rules that matched (throttle,
 * actions, fire_count, an audit event each) and writes every outcome. A failure rolls the whole batch
 * back, launches included, so an event fires at most once and is never lost; a log another node wrote
 * meanwhile is left to it. Evaluation is pure, so reading the batch needs no claim of its own.
 */
import { systemContextIn } from '../api/context.ts';
import { recordAudits, type AuditEvent } from '../audit/record.ts';
import type { Queryable } from '../db/database.ts';
import type { EventRuleRow } from '../db/tables.ts';
import type { Action } from '../resources/event-rules/actions.ts';
import { conditionContextJson, evaluateConditions, type Condition, type ConditionResult } from '../resources/event-rules/conditions.ts';
import { OUTSIDE_THROTTLE } from '../resources/event-rules/receiving-rules.ts';
import { LaunchMemo } from '../runs/launch-memo.ts';
import { launchFiring, runAction, type ActionOutcome, type EdaLaunchers, type PendingLaunch } from './actions.ts';
import type { RunServices } from '../runs/run-services.ts';

/** Most events evaluated in one transaction (a batch's costs, its transaction and sandbox message, are shared by more events). */
export const BATCH = 500;

/** A log waiting for evaluation, its payload and headers as JSON text: only a firing needs them parsed. */
interface ReceivedLog {
  id: number;
  event_rule_id: number | null;
  event_type: string;
  event_guid: string;
  payload_json: string;
  headers_json: string;
}

interface Outcome {
  id: number;
  status: string;
  conditions_matched: boolean | null;
  condition_results: ConditionResult[];
  actions_triggered: ActionOutcome[];
  job_id: number | null;
}

const received = (db: Queryable) =>
  db.query<ReceivedLog>(
    `SELECT id, event_rule_id, event_type, event_guid, payload::text AS payload_json, headers::text AS headers_json
     FROM event_logs WHERE status = 'received' ORDER BY id LIMIT ${BATCH}`,
  );

/** Evaluates the next batch of received events; answers how many there were. */
export async function evaluateNextBatch(services: RunServices, launchers: EdaLaunchers): Promise<number> {
  const { db } = services;
  const logs = (await received(db)).map((log) => ({ ...log, id: Number(log.id) }));
  if (!logs.length) return 0;
  // A trace of its own; the launches its rules fire are its children.
  return services.tracing.inSpan('event rules evaluation', { 'drover.eda.events': logs.length }, () => evaluateBatch(services, launchers, logs), { root: true });
}

async function evaluateBatch(services: RunServices, launchers: EdaLaunchers, logs: ReceivedLog[]): Promise<number> {
  const { db } = services;
  const ruleIds = [...new Set(logs.map((l) => l.event_rule_id).filter((id): id is number => id !== null))];
  const rules = new Map((await db.query<EventRuleRow>('SELECT * FROM event_rules WHERE id = ANY($1::int[])', [ruleIds])).map((r) => [r.id, r]));
  const live = logs.filter((log) => rules.get(log.event_rule_id ?? -1)?.enabled);
  const results = await evaluateConditions(
    live.map((log) => {
      const rule = rules.get(log.event_rule_id!)!;
      return { conditions: rule.conditions as Condition[], organization: rule.organization_id, contextJson: conditionContextJson(log.payload_json, log.headers_json) };
    }),
    { stopAtFirstFailure: true, serviceWork: true },
  );
  const conditionResults = new Map(live.map((log, i) => [log.id, results[i]]));

  await db.transaction(async (tx) => {
    const locked = new Set((await tx.query<{ id: number }>(
      `SELECT id FROM event_logs WHERE id = ANY($1::bigint[]) AND status = 'received' ORDER BY id FOR UPDATE SKIP LOCKED`, [logs.map((l) => l.id)],
    )).map((r) => Number(r.id)));
    const firing = new Firing(tx, services, launchers);
    const outcomes: Outcome[] = [];
    for (const log of logs) {
      if (!locked.has(log.id)) continue;
      outcomes.push(await firing.decide(log, rules.get(log.event_rule_id ?? -1), conditionResults.get(log.id)));
    }
    await firing.finish();
    await writeOutcomes(tx, outcomes);
  });
  return logs.length;
}

/**
 * The firings of one batch: throttled rules claim each firing; unthrottled ones are counted and
 * updated once. Launches wait for the end of the batch, where those of one target are made together.
 */
class Firing {
  private counts = new Map<number, number>();
  private fired: { outcome: Outcome; rule: EventRuleRow; log: ReceivedLog }[] = [];
  private launches: PendingLaunch[] = [];
  private memo = new LaunchMemo();

  constructor(private tx: Queryable, private services: RunServices, private launchers: EdaLaunchers) {}

  async decide(log: ReceivedLog, rule: EventRuleRow | undefined, results: ConditionResult[] | undefined): Promise<Outcome> {
    const outcome: Outcome = { id: log.id, status: 'unmatched', conditions_matched: null, condition_results: results ?? [], actions_triggered: [], job_id: null };
    if (!rule) return { ...outcome, status: 'error', actions_triggered: [{ action_type: '', target_id: 0, description: '', ok: false, error: 'The rule was deleted before the event was evaluated.' }] };
    if (!rule.enabled || !results) return outcome;
    outcome.conditions_matched = results.every((r) => r.matched);
    if (!outcome.conditions_matched) return outcome;
    if (!(await this.claim(rule))) return { ...outcome, status: 'throttled' };
    const event = { logId: log.id, rule, eventType: log.event_type, guid: log.event_guid, payload: JSON.parse(log.payload_json) as unknown };
    for (const action of rule.actions as Action[]) {
      const { outcome: done, launch } = await runAction(this.tx, this.services.runKinds, event, action, this.memo);
      outcome.actions_triggered.push(done);
      if (launch) this.launches.push(launch);
    }
    this.fired.push({ outcome, rule, log });
    return outcome;
  }

  /** Whether the rule may fire now: a throttled rule's firing is claimed at once (the row stays locked until commit). */
  private async claim(rule: EventRuleRow): Promise<boolean> {
    if (!rule.throttle_seconds) {
      this.counts.set(rule.id, (this.counts.get(rule.id) ?? 0) + 1);
      return true;
    }
    const claimed = await this.tx.query(
      `UPDATE event_rules SET last_fired_at = now(), fire_count = fire_count + 1
       WHERE id = $1 AND (${OUTSIDE_THROTTLE}) RETURNING id`,
      [rule.id],
    );
    return claimed.length > 0;
  }

  /** Makes the launches, settles each firing's outcome, counts the unthrottled firings and records an audit event per firing. */
  async finish(): Promise<void> {
    await launchFiring(this.tx, this.services, this.launchers, this.launches);
    const audits: AuditEvent[] = [];
    // An outcome names the run it launched by the run's kind.
    const launchingKinds = this.services.runKinds.eventRuleActions().map((k) => k.name);
    const runOf = (action: ActionOutcome) => launchingKinds.map((k) => action[k]).find((id): id is number => typeof id === 'number');
    for (const { outcome, rule, log } of this.fired) {
      outcome.job_id = outcome.actions_triggered.map(runOf).find((id) => id !== undefined) ?? null;
      outcome.status = outcome.actions_triggered.every((a) => a.ok) ? 'action_fired' : 'action_failed';
      audits.push({
        type: 'eda.rule_fired',
        outcome: outcome.status === 'action_fired' ? 'success' : 'failure',
        ctx: systemContextIn(this.services),
        target: { type: 'event_rule', id: rule.id, name: rule.name },
        detail: { event_log_id: log.id, event_type: log.event_type, event_guid: log.event_guid, actions: outcome.actions_triggered },
      });
    }
    if (this.counts.size) {
      await this.tx.query(
        `UPDATE event_rules r SET last_fired_at = now(), fire_count = r.fire_count + c.n
         FROM unnest($1::int[], $2::int[]) AS c(id, n) WHERE r.id = c.id`,
        [[...this.counts.keys()], [...this.counts.values()]],
      );
    }
    await recordAudits(this.tx, audits);
  }
}

async function writeOutcomes(tx: Queryable, outcomes: Outcome[]): Promise<void> {
  if (!outcomes.length) return;
  await tx.query(
    `UPDATE event_logs l SET status = o.status, conditions_matched = o.conditions_matched, condition_results = o.condition_results,
       actions_triggered = o.actions_triggered, job_id = o.job_id, processed_at = now()
     FROM jsonb_to_recordset($1::jsonb) AS o(id bigint, status text, conditions_matched boolean, condition_results jsonb, actions_triggered jsonb, job_id integer)
     WHERE l.id = o.id`,
    [JSON.stringify(outcomes)],
  );
}
