/**
 * What a firing rule does (docs/event-driven.md#actions), each action inside the evaluation's
 * transaction: launches go through the launch service as the system would launch the target (its own
 * settings, launch_type webhook, the event's svc_eda_* variables, which reach Ansible unsafe), refused
 * when the target has left the rule's organization; notifications are queued through their template.
 */
import { systemContextIn } from '../api/context.ts';
import type { Queryable, Row } from '../db/database.ts';
import type { EventRuleRow } from '../db/tables.ts';
import { queueTemplateNotification } from '../resources/notification-templates/queue.ts';
import { actionTarget, type Action, type ActionType } from '../resources/event-rules/actions.ts';
import type { Launcher } from '../runs/launch.ts';
import type { LaunchMemo } from '../runs/launch-memo.ts';
import type { RunKinds } from '../runs/run-kind.ts';
import type { WebhookLaunch } from '../runs/webhooks/delivery-launch.ts';
import type { RunServices } from '../runs/run-services.ts';

/** The launcher of each launching action type, and the run kind it makes: the eventRule launcher of the kind whose templates are the targets. */
export type EdaLaunchers = ReadonlyMap<ActionType, { kind: string; launcher: Launcher<WebhookLaunch> }>;

/** Each launching action type's launcher: that of the run kind whose event rule action it is. */
export function edaLaunchers(runKinds: RunKinds): EdaLaunchers {
  return new Map(runKinds.eventRuleActions().map((kind) => {
    const launcher = kind.launchers?.eventRule;
    if (!launcher) throw new Error(`run kind ${kind.name} has an event rule action (${kind.eventRuleAction.type}) but no eventRule launcher`);
    return [kind.eventRuleAction.type, { kind: kind.name, launcher }];
  }));
}

export interface FiredEvent {
  logId: number;
  rule: EventRuleRow;
  eventType: string;
  guid: string;
  payload: unknown;
}

export interface ActionOutcome {
  action_type: string;
  target_id: number;
  description: string;
  ok: boolean;
  notification?: number;
  error?: string;
  /** The run launched, under its kind's name (job, workflow_job). */
  [runKind: string]: unknown;
}

/** The variables every launched playbook gets (docs/event-driven.md#actions). */
export const edaVariables = (event: FiredEvent) => ({
  svc_eda_event_type: event.eventType,
  svc_eda_event_guid: event.guid,
  svc_eda_rule_name: String(event.rule.name),
  svc_eda_payload: event.payload,
});

const refusalText = (body: Record<string, unknown>) =>
  Object.entries(body).map(([field, value]) => `${field === 'detail' ? '' : `${field}: `}${Array.isArray(value) ? value.join(' ') : String(value)}`).join('; ');

/** A launch an action asks for, made with the other launches of its batch (launchFiring). */
export interface PendingLaunch {
  action: Action;
  target: Row;
  input: WebhookLaunch;
  /** Filled in once the batch's launches are made. */
  outcome: ActionOutcome;
}

/**
 * Runs one action of a firing: a notification is queued at once; a launch is answered as pending,
 * to be made with the batch's other launches of its target. `memo` shares reads across the batch.
 */
export async function runAction(
  tx: Queryable, kinds: RunKinds, event: FiredEvent, action: Action, memo: LaunchMemo,
): Promise<{ outcome: ActionOutcome; launch?: PendingLaunch }> {
  const base = { action_type: action.action_type, target_id: action.target_id, description: action.description };
  const target = actionTarget(kinds, action.action_type);
  if (!target) return { outcome: { ...base, ok: false, error: `There is no action type ${action.action_type}.` } };
  const [row] = await memo.once(`${target.table}:${action.target_id}`, () => tx.query(`SELECT * FROM ${target.table} WHERE id = $1`, [action.target_id]));
  if (!row || row.organization_id !== event.rule.organization_id) {
    return { outcome: { ...base, ok: false, error: `There is no ${target.label} ${action.target_id} in the rule's organization.` } };
  }
  if (!target.kind) {
    const notification = await queueTemplateNotification(tx, action.target_id, 'event_rule', {
      extraContext: {
        rule_name: event.rule.name,
        event_type: event.eventType,
        event_guid: event.guid,
        eda_event: { rule: event.rule.name, rule_id: event.rule.id, event_log_id: event.logId, event_type: event.eventType, event_guid: event.guid, payload: event.payload },
      },
    });
    return { outcome: { ...base, ok: true, notification } };
  }
  const outcome: ActionOutcome = { ...base, ok: false };
  const input: WebhookLaunch = { service: '', guid: event.guid, extraVars: { ...action.extra_vars, ...edaVariables(event) }, columns: {}, memo };
  return { outcome, launch: { action, target: row, input, outcome } };
}

/** Makes a batch's pending launches through the launch service, those of one target together, and fills in their outcomes. */
export async function launchFiring(tx: Queryable, services: RunServices, launchers: EdaLaunchers, pending: readonly PendingLaunch[]): Promise<void> {
  const byTarget = new Map<string, PendingLaunch[]>();
  for (const launch of pending) {
    const key = `${launch.action.action_type}:${launch.action.target_id}`;
    const group = byTarget.get(key);
    if (group) group.push(launch);
    else byTarget.set(key, [launch]);
  }
  for (const group of byTarget.values()) {
    const made = launchers.get(group[0].action.action_type)!;
    const results = await services.launches.launchAllWithin(tx, systemContextIn(services), made.launcher, group[0].target, group.map((l) => l.input));
    group.forEach(({ outcome }, i) => {
      const launched = results[i];
      if (!launched.ok) Object.assign(outcome, { ok: false, error: refusalText(launched.refusal.body) });
      else Object.assign(outcome, { ok: true, [made.kind]: launched.run.id });
    });
  }
}
