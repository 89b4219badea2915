/**
 * An event rule's conditions: Jinja2 expressions over `event` (the payload) and `headers`, evaluated in
 * the sandbox (src/templating/sandbox.ts) with a time limit per event. All must hold; an expression that
 * fails counts as not matched and keeps its error.
 */
import { FieldProblem } from '../../api/fields.ts';
import { checkExpressionSyntax, evaluateConditionSets } from '../../templating/sandbox.ts';

export interface Condition {
  jinja2_expression: string;
  description: string;
}

export interface ConditionResult {
  expression: string;
  description: string;
  matched: boolean;
  error?: string;
  /** Not evaluated: an earlier condition did not hold. */
  skipped?: true;
}

const MAX_CONDITIONS = 100;
const MAX_EXPRESSION = 4_096;
const MAX_DESCRIPTION = 1_024;
/** The JSON Schema of a rule's conditions, for its body schema and the OpenAPI document (parseConditions checks what it cannot say). */
export const CONDITIONS_SCHEMA = {
  type: 'array',
  maxItems: MAX_CONDITIONS,
  items: {
    type: 'object',
    properties: { jinja2_expression: { type: 'string', maxLength: MAX_EXPRESSION }, description: { type: ['string', 'null'], maxLength: MAX_DESCRIPTION } },
    required: ['jinja2_expression'],
  },
};

/** What evaluating one event's conditions may take. */
export const CONDITION_TIMEOUT_MS = 1_000;

const typeName = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value);

/** A list of conditions as stored, or a FieldProblem naming the first bad one ("Condition 2: ..."). */
export function parseConditions(value: unknown): Condition[] {
  if (!Array.isArray(value)) throw new FieldProblem(`Expected a list of conditions but got type "${typeName(value)}".`);
  if (value.length > MAX_CONDITIONS) throw new FieldProblem(`Ensure this list has no more than ${MAX_CONDITIONS} conditions.`);
  return value.map((item, i) => {
    const where = `Condition ${i + 1}`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new FieldProblem(`${where}: expected an object with jinja2_expression and description.`);
    const { jinja2_expression: expression, description = '' } = item as Record<string, unknown>;
    if (typeof expression !== 'string' || !expression.trim()) throw new FieldProblem(`${where}: jinja2_expression is required.`);
    if (expression.length > MAX_EXPRESSION) throw new FieldProblem(`${where}: jinja2_expression is longer than ${MAX_EXPRESSION} characters.`);
    if (typeof description !== 'string' && description !== null) throw new FieldProblem(`${where}: description must be a string.`);
    if ((description ?? '').length > MAX_DESCRIPTION) throw new FieldProblem(`${where}: description is longer than ${MAX_DESCRIPTION} characters.`);
    const problem = checkExpressionSyntax(expression);
    if (problem) throw new FieldProblem(`${where}: ${problem}`);
    return { jinja2_expression: expression, description: description ?? '' };
  });
}

/** What conditions see of one event. */
export const conditionContext = (payload: unknown, headers: Record<string, string>) => ({ event: payload, headers });

/** conditionContext as JSON text, from the payload's and headers' JSON text (a stored event's, unparsed). */
export const conditionContextJson = (payloadJson: string, headersJson: string) => `{"event":${payloadJson},"headers":${headersJson}}`;

/**
 * One event's conditions, the organization of their rule (the sandbox serves organizations in turn),
 * and what they see: its payload and headers, or conditionContextJson's text of them.
 */
export type ConditionItem = { conditions: readonly Condition[]; organization: number } & ({ payload: unknown; headers: Record<string, string> } | { contextJson: string });

export interface EvaluationOptions {
  /** What firing does (all must hold): the conditions after the first that does not hold are skipped; a dry run evaluates them all. */
  stopAtFirstFailure?: boolean;
  /** The evaluation loop's batches, never refused by the sandbox's queue (a dry run of the API is). */
  serviceWork?: boolean;
}

/** Each event's conditions evaluated, the events of one organization sent to the sandbox together. */
export async function evaluateConditions(items: readonly ConditionItem[], options: EvaluationOptions = {}): Promise<ConditionResult[][]> {
  const outcomes = await evaluateConditionSets(
    items.map((item) => ({
      organization: item.organization,
      expressions: item.conditions.map((c) => c.jinja2_expression),
      context: 'contextJson' in item ? item.contextJson : conditionContext(item.payload, item.headers),
      stopAtFirstFailure: options.stopAtFirstFailure,
    })),
    { timeoutMs: CONDITION_TIMEOUT_MS, serviceWork: options.serviceWork },
  );
  return items.map((item, i) => item.conditions.map((c, j) => ({ expression: c.jinja2_expression, description: c.description, ...outcomes[i][j] })));
}

/** Header names as conditions read them (lower case), values as text: for the test endpoint's headers. */
export function conditionHeaders(headers: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== null && value !== undefined) out[name.toLowerCase()] = typeof value === 'string' ? value : JSON.stringify(value);
  return out;
}
