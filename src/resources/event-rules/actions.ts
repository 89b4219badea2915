/**
 * An event rule's actions (docs/event-driven.md#actions): what a firing does, in order. A target
 * must exist, belong to the rule's organization, and (for launches) be one the rule's author may launch.
 */
import { hasObjectRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { FieldProblem } from '../../api/fields.ts';
import type { Queryable } from '../../db/database.ts';
import { runKindsOf } from '../../runs/run-services.ts';
import type { RunKind, RunKinds } from '../../runs/run-kind.ts';

/** The action that launches nothing: a notification through a notification template. */
const SEND_NOTIFICATION = 'send_notification';

/** An action type: one launching the templates of a run kind (its event rule action), or send_notification. */
export type ActionType = string;

export interface Action {
  action_type: ActionType;
  target_id: number;
  extra_vars: Record<string, unknown>;
  description: string;
}

/** Where an action type's target lives, the role launching it needs (none for notifications) and the run kind it launches. */
export interface ActionTarget {
  table: string;
  label: string;
  contentType: string;
  role: string | null;
  kind?: RunKind;
}

const NOTIFICATION_TARGET: ActionTarget = { table: 'notification_templates', label: 'notification template', contentType: 'notification_template', role: null };

/** The action types: those launching the templates of the run kinds with an event rule action, then send_notification. */
export function actionTypes(kinds: RunKinds): ActionType[] {
  return [...kinds.eventRuleActions().map((k) => k.eventRuleAction.type), SEND_NOTIFICATION];
}

/** The target of an action type, or undefined for an unknown type. */
export function actionTarget(kinds: RunKinds, type: ActionType): ActionTarget | undefined {
  if (type === SEND_NOTIFICATION) return NOTIFICATION_TARGET;
  const kind = kinds.eventRuleActions().find((k) => k.eventRuleAction.type === type);
  if (!kind?.templateTable) return undefined;
  const { label, contentType, role } = kind.eventRuleAction;
  return { table: kind.templateTable, label, contentType, role, kind };
}

const MAX_ACTIONS = 20;

/** The composition's vocabulary entry: the run kinds of the service, whose action types and targets rules may name (composeServices). */
export const EVENT_RULE_RUN_KINDS = 'event rule run kinds';

/** The JSON Schema of a rule's actions, for its body schema and the OpenAPI document (parseActions checks what it cannot say). */
export const actionsSchema = (kinds: RunKinds) => ({
  type: 'array',
  minItems: 1,
  maxItems: MAX_ACTIONS,
  items: {
    type: 'object',
    properties: {
      action_type: { type: 'string', enum: actionTypes(kinds) },
      target_id: { type: 'integer', minimum: 1 },
      extra_vars: { type: ['object', 'null'], additionalProperties: true },
      description: { type: ['string', 'null'] },
    },
    required: ['action_type', 'target_id'],
  },
});

/** A list of actions as stored, or a FieldProblem naming the first bad one ("Action 1: ..."). */
export function parseActions(value: unknown, kinds: RunKinds): Action[] {
  if (!Array.isArray(value)) throw new FieldProblem(`Expected a list of actions but got type "${value === null ? 'null' : typeof value}".`);
  if (!value.length) throw new FieldProblem('A rule needs at least one action.');
  if (value.length > MAX_ACTIONS) throw new FieldProblem(`Ensure this list has no more than ${MAX_ACTIONS} actions.`);
  return value.map((item, i) => {
    const where = `Action ${i + 1}`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new FieldProblem(`${where}: expected an object with action_type and target_id.`);
    const { action_type: type, target_id: target, extra_vars: vars, description = '' } = item as Record<string, unknown>;
    const targetOf = typeof type === 'string' ? actionTarget(kinds, type) : undefined;
    if (!targetOf) throw new FieldProblem(`${where}: action_type must be one of ${actionTypes(kinds).join(', ')}.`);
    if (typeof target !== 'number' || !Number.isInteger(target) || target < 1 || target > 2_147_483_647) throw new FieldProblem(`${where}: target_id must be the id of a ${targetOf.label}.`);
    if (vars !== undefined && vars !== null && (typeof vars !== 'object' || Array.isArray(vars))) throw new FieldProblem(`${where}: extra_vars must be an object.`);
    if (JSON.stringify(vars ?? {}).length > 65_536) throw new FieldProblem(`${where}: extra_vars is larger than 64 KiB.`);
    if (typeof description !== 'string' && description !== null) throw new FieldProblem(`${where}: description must be a string.`);
    return { action_type: type as string, target_id: target, extra_vars: (vars ?? {}) as Record<string, unknown>, description: (description ?? '').slice(0, 1_024) };
  });
}

/** Why the action cannot be saved in a rule of `organizationId` by `ctx`, or null. */
export async function actionProblem(tx: Queryable, ctx: RequestContext, organizationId: number, action: Action): Promise<string | null> {
  const target = actionTarget(runKindsOf(ctx.service), action.action_type);
  if (!target) return `There is no action type ${action.action_type}.`;
  const [row] = await tx.query<{ organization_id: number | null }>(`SELECT organization_id FROM ${target.table} WHERE id = $1`, [action.target_id]);
  // One answer for both, so that a rule cannot tell whether another organization's object exists.
  if (!row || row.organization_id !== organizationId) return `There is no ${target.label} ${action.target_id} in the rule's organization.`;
  if (target.role && !(await hasObjectRole(ctx, tx, target.contentType, action.target_id, target.role))) return `You do not have permission to launch ${target.label} ${action.target_id}.`;
  return null;
}
