/**
 * An event rule's actions (docs/event-driven.md#actions): what a firing does, in order. A target
 * must exist, belong to the rule's organization, and (for launches) be one the rule's author may launch.
 */
import { hasObjectRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { FieldProblem } from '../../api/fields.ts';
import type { Queryable } from '../../db/database.ts';

export const ACTION_TYPES = ['launch_job_template', 'launch_workflow', 'send_notification'] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export interface Action {
  action_type: ActionType;
  target_id: number;
  extra_vars: Record<string, unknown>;
  description: string;
}

const MAX_ACTIONS = 20;

/** The JSON Schema of a rule's actions, for the OpenAPI document (parseActions checks them). */
export const ACTIONS_SCHEMA = {
  type: 'array',
  minItems: 1,
  maxItems: MAX_ACTIONS,
  items: {
    type: 'object',
    properties: {
      action_type: { type: 'string', enum: [...ACTION_TYPES] },
      target_id: { type: 'integer', minimum: 1 },
      extra_vars: { type: 'object', additionalProperties: true },
      description: { type: 'string' },
    },
    required: ['action_type', 'target_id'],
  },
};

/** Where each action type's target lives, and the role launching it needs (none for notifications). */
export const ACTION_TARGETS: Record<ActionType, { table: string; label: string; contentType: string; role: string | null }> = {
  launch_job_template: { table: 'job_templates', label: 'job template', contentType: 'job_template', role: 'execute_role' },
  launch_workflow: { table: 'workflow_job_templates', label: 'workflow job template', contentType: 'workflow_job_template', role: 'execute_role' },
  send_notification: { table: 'notification_templates', label: 'notification template', contentType: 'notification_template', role: null },
};

/** A list of actions as stored, or a FieldProblem naming the first bad one ("Action 1: ..."). */
export function parseActions(value: unknown): Action[] {
  if (!Array.isArray(value)) throw new FieldProblem(`Expected a list of actions but got type "${value === null ? 'null' : typeof value}".`);
  if (!value.length) throw new FieldProblem('A rule needs at least one action.');
  if (value.length > MAX_ACTIONS) throw new FieldProblem(`Ensure this list has no more than ${MAX_ACTIONS} actions.`);
  return value.map((item, i) => {
    const where = `Action ${i + 1}`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new FieldProblem(`${where}: expected an object with action_type and target_id.`);
    const { action_type: type, target_id: target, extra_vars: vars, description = '' } = item as Record<string, unknown>;
    if (typeof type !== 'string' || !(ACTION_TYPES as readonly string[]).includes(type)) throw new FieldProblem(`${where}: action_type must be one of ${ACTION_TYPES.join(', ')}.`);
    if (typeof target !== 'number' || !Number.isInteger(target) || target < 1 || target > 2_147_483_647) throw new FieldProblem(`${where}: target_id must be the id of a ${ACTION_TARGETS[type as ActionType].label}.`);
    if (vars !== undefined && vars !== null && (typeof vars !== 'object' || Array.isArray(vars))) throw new FieldProblem(`${where}: extra_vars must be an object.`);
    if (JSON.stringify(vars ?? {}).length > 65_536) throw new FieldProblem(`${where}: extra_vars is larger than 64 KiB.`);
    if (typeof description !== 'string' && description !== null) throw new FieldProblem(`${where}: description must be a string.`);
    return { action_type: type as ActionType, target_id: target, extra_vars: (vars ?? {}) as Record<string, unknown>, description: (description ?? '').slice(0, 1_024) };
  });
}

/** Why the action cannot be saved in a rule of `organizationId` by `ctx`, or null. */
export async function actionProblem(tx: Queryable, ctx: RequestContext, organizationId: number, action: Action): Promise<string | null> {
  const target = ACTION_TARGETS[action.action_type];
  const [row] = await tx.query<{ organization_id: number | null }>(`SELECT organization_id FROM ${target.table} WHERE id = $1`, [action.target_id]);
  // One answer for both, so that a rule cannot tell whether another organization's object exists.
  if (!row || row.organization_id !== organizationId) return `There is no ${target.label} ${action.target_id} in the rule's organization.`;
  if (target.role && !(await hasObjectRole(ctx, tx, target.contentType, action.target_id, target.role))) return `You do not have permission to launch ${target.label} ${action.target_id}.`;
  return null;
}
