/** The event rule endpoints beyond the generic ones, and the shapes the event-driven pages read. */
import { http } from '../../api/client';
import { ApiError } from '../../api/errors';
import { enumKeys } from '../../api/enums';
import type { ApiAnswer, ApiBody, ResourceObject } from '../../api/types';

export type EventRule = ResourceObject<'event_rules'>;
type StoredCondition = EventRule['conditions'][number];
type StoredAction = EventRule['actions'][number];

export type Condition = Required<StoredCondition> & { description: string };
export type ActionType = StoredAction['action_type'];

/** An action as the editor holds it: the target not yet picked is null. */
export type RuleAction = Required<Omit<StoredAction, 'target_id'>> & { target_id: number | null; description: string };

/** What each action type is called and which list its target is picked from. */
export const ACTION_KINDS: Record<ActionType, { label: string; targets: string; target: string }> = {
  launch_job_template: { label: 'Launch job template', targets: 'job_templates', target: 'Job template' },
  launch_workflow: { label: 'Launch workflow', targets: 'workflow_job_templates', target: 'Workflow template' },
  send_notification: { label: 'Send notification', targets: 'notification_templates', target: 'Notification template' },
};

export const ACTION_TYPES = enumKeys(ACTION_KINDS);

export const actionKind = (type: unknown) => ACTION_KINDS[type as ActionType] as (typeof ACTION_KINDS)[ActionType] | undefined;

export interface ConditionResult {
  expression: string;
  description: string;
  matched: boolean;
  error?: string;
  /** Not evaluated: an earlier condition did not hold. */
  skipped?: boolean;
}

export interface TestAnswer {
  matched: boolean;
  condition_results: ConditionResult[];
  would_fire: boolean;
  actions: RuleAction[];
}

/** One action's outcome in an event log. */
export interface ActionOutcome {
  action_type: string;
  target_id: number;
  description?: string;
  ok: boolean;
  job?: number;
  workflow_job?: number;
  notification?: number;
  error?: string;
}

export const conditionsOf = (rule: EventRule | undefined): Condition[] => (rule?.conditions ?? []).map((c) => ({ ...c, description: c.description ?? '' }));
export const actionsOf = (rule: EventRule | undefined): RuleAction[] => (rule?.actions ?? []).map((a) => ({ ...a, extra_vars: a.extra_vars ?? {}, description: a.description ?? '' }));

const ruleLink = (rule: EventRule, name: string) => rule.related[name] ?? `${rule.url}${name}/`;

export const testRule = (rule: EventRule, body: ApiBody<'/api/v2/event_rules/{id}/test/', 'post'>) => http.post<TestAnswer>(ruleLink(rule, 'test'), body);

type KeyAnswer = ApiAnswer<'/api/v2/event_rules/{id}/webhook_key/'> extends { webhook_key: string } ? ApiAnswer<'/api/v2/event_rules/{id}/webhook_key/'> : { webhook_key: string };
export const readKey = async (rule: EventRule) => (await http.get<KeyAnswer>(ruleLink(rule, 'webhook_key'))).webhook_key;
export const rotateKey = async (rule: EventRule) => (await http.post<KeyAnswer>(ruleLink(rule, 'webhook_key'), {})).webhook_key;

/** The receiver URL as a sender needs it: the API answers a path when no base URL is configured. */
export const absoluteUrl = (url: unknown) => {
  const text = String(url ?? '');
  return text.startsWith('/') ? `${window.location.origin}${text}` : text;
};

/** How a sender of each source type proves it holds the key. */
export function signingHint(sourceType: unknown): string {
  if (sourceType === 'webhook_codehost_a') return 'The code host signs each delivery with the key: X-Codehosta-Signature-256 (sha256=…) or X-Codehosta-Signature (sha1=…).';
  if (sourceType === 'webhook_codehost_b') return 'The code host sends the key itself in X-Codehostb-Token.';
  return 'Sign each delivery with X-Svc-Signature: sha256=<hex HMAC-SHA256 of the raw body, keyed with the key>.';
}

/**
 * The messages a 400 answer gives for a list field ("Condition 2: ...", "Action 1: ..."), placed on the
 * row they name (by index from 0); the others are kept apart.
 */
export function rowMessages(error: unknown, field: string, noun: 'Condition' | 'Action'): { byRow: Record<number, string>; other: string[] } {
  const out: { byRow: Record<number, string>; other: string[] } = { byRow: {}, other: [] };
  if (!(error instanceof ApiError) || error.status !== 400 || !error.body || typeof error.body !== 'object') return out;
  const value = (error.body as Record<string, unknown>)[field];
  if (value === undefined) return out;
  const pattern = new RegExp(`^${noun} (\\d+): ([\\s\\S]*)$`);
  for (const message of ([] as unknown[]).concat(value).map(String)) {
    const match = pattern.exec(message);
    const row = match ? Number(match[1]) - 1 : -1;
    if (match && row >= 0) out.byRow[row] = out.byRow[row] ? `${out.byRow[row]} ${match[2]}` : match[2];
    else out.other.push(message);
  }
  return out;
}

/** A JSON object typed into a text area, or why it is not one. */
export function parseJsonObject(text: string, what: string): { value?: Record<string, unknown>; problem?: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: `${what} is not valid JSON: ${(err as Error).message}` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: `${what} must be a JSON object ({...}).` };
  return { value: value as Record<string, unknown> };
}
