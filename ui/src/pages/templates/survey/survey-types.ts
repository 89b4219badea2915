import type { ApiAnswer } from '../../../api/types';

/** A template's survey as the API holds it (GET/POST <template>/survey_spec/). */
export type QuestionType = ApiAnswer<'/api/v2/job_templates/{id}/survey_spec/'>['spec'][number]['type'];

const QUESTION_LABELS: Record<QuestionType, string> = {
  text: 'Text',
  textarea: 'Textarea',
  password: 'Password',
  integer: 'Integer',
  float: 'Float',
  multiplechoice: 'Multiple choice (single select)',
  multiselect: 'Multiple choice (multiple select)',
};

export const QUESTION_TYPES = Object.entries(QUESTION_LABELS) as [QuestionType, string][];

export interface SurveyQuestion {
  question_name: string;
  question_description?: string;
  variable: string;
  type: QuestionType;
  required: boolean;
  min?: number | string | null;
  max?: number | string | null;
  default?: unknown;
  choices?: string | string[];
  [key: string]: unknown;
}

/** Where a multiple-choice question's choices come from at launch (survey_spec/dynamic_choices/). */
export interface DynamicChoices {
  enabled: boolean;
  source_type?: ApiAnswer<'/api/v2/job_templates/{id}/survey_spec/dynamic_choices/', 'post'>[string]['source_type'];
  cache_ttl?: number;
  [setting: string]: unknown;
}

/** One dynamic question's choices as the API resolved them; `error` when its source failed. */
export interface ResolvedChoices {
  choices: string[];
  source_type: string;
  error?: string;
}

export interface SurveySpec {
  name: string;
  description: string;
  spec: SurveyQuestion[];
}

export const isChoiceType = (type: string) => type === 'multiplechoice' || type === 'multiselect';
export const isNumberType = (type: string) => type === 'integer' || type === 'float';
export const isTextType = (type: string) => type === 'text' || type === 'textarea' || type === 'password';

export const isDynamic = (q: SurveyQuestion): boolean => isChoiceType(q.type) && (q.dynamic_choices as DynamicChoices | undefined)?.enabled === true;

export function choicesOf(q: Pick<SurveyQuestion, 'choices'>): string[] {
  if (Array.isArray(q.choices)) return q.choices.map(String);
  if (typeof q.choices === 'string') return q.choices.split('\n').filter((c) => c !== '');
  return [];
}

const limit = (value: unknown): number | undefined => (value === undefined || value === null || value === '' ? undefined : Number(value));

/** What a form holds for a question before it is answered: its default (a list for multiselect). */
export function initialAnswer(q: SurveyQuestion): unknown {
  const def = q.default;
  if (q.type === 'multiselect') return Array.isArray(def) ? def.map(String) : typeof def === 'string' ? def.split('\n').filter((d) => d !== '') : [];
  if (def === undefined || def === null) return '';
  return String(def);
}

const isEmpty = (value: unknown) => value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

/** Why an answer would be refused (the API's rules), or null. */
export function answerProblem(q: SurveyQuestion, value: unknown): string | null {
  if (isEmpty(value)) return q.required ? 'An answer is required.' : null;
  const min = limit(q.min);
  const max = limit(q.max);
  if (isTextType(q.type)) {
    const text = String(value);
    if (text === '$encrypted$') return null;
    if (min !== undefined && text.length < min) return `At least ${min} characters.`;
    if (max !== undefined && text.length > max) return `At most ${max} characters.`;
    return null;
  }
  if (isNumberType(q.type)) {
    const n = Number(value);
    if (!Number.isFinite(n) || (q.type === 'integer' && !Number.isInteger(n))) return q.type === 'integer' ? 'A whole number.' : 'A number.';
    if (min !== undefined && n < min) return `At least ${min}.`;
    if (max !== undefined && n > max) return `At most ${max}.`;
    return null;
  }
  // Choices from a source are checked by the API only for their type: they may change between showing and launching.
  if (isDynamic(q)) return null;
  const choices = choicesOf(q);
  const picked = Array.isArray(value) ? value.map(String) : [String(value)];
  return picked.every((p) => choices.includes(p)) ? null : 'Pick from the choices.';
}

/** The answer as extra_vars take it, or undefined when left out. */
export function answerValue(q: SurveyQuestion, value: unknown): unknown {
  if (isEmpty(value)) return q.type === 'multiselect' && q.required ? [] : undefined;
  if (isNumberType(q.type)) return Number(value);
  if (q.type === 'multiselect') return (value as unknown[]).map(String);
  return String(value);
}

/** Every question's answer problem, by variable. */
export function surveyProblems(spec: SurveyQuestion[], answers: Record<string, unknown>): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const q of spec) {
    const problem = answerProblem(q, answers[q.variable]);
    if (problem) problems[q.variable] = problem;
  }
  return problems;
}

export function surveyValues(spec: SurveyQuestion[], answers: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const q of spec) {
    const value = answerValue(q, answers[q.variable]);
    if (value !== undefined) values[q.variable] = value;
  }
  return values;
}

/**
 * Places the API's survey messages (variables_needed_to_start: ["'x' value missing", ...]) on the
 * question whose variable they quote; the rest are answered apart.
 */
export function placeSurveyMessages(spec: SurveyQuestion[], messages: string[]): { placed: Record<string, string>; rest: string[] } {
  const placed: Record<string, string> = {};
  const rest: string[] = [];
  for (const message of messages) {
    const q = spec.find((question) => message.includes(`'${question.variable}'`));
    if (q) placed[q.variable] = placed[q.variable] ? `${placed[q.variable]} ${message}` : message;
    else rest.push(message);
  }
  return { placed, rest };
}
