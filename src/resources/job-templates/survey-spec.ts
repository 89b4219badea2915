/**
 * Survey specs of job templates: validation of a spec as AWX does it, validation of the answers a
 * launch brings, and the encryption of password defaults (stored encrypted, shown as $encrypted$).
 */
import type { FieldErrors } from '../../api/errors.ts';
import { ENCRYPTED } from '../../api/fields.ts';
import { decryptSecret, encryptSecret, isEncryptedSecret } from '../../secrets/encryption.ts';
import { encryptHeaders, maskHeaders } from './dynamic-choices/header-secrets.ts';
import { dynamicChoicesProblem, dynamicSource } from './dynamic-choices/source-spec.ts';

export const QUESTION_TYPES = ['text', 'textarea', 'password', 'integer', 'float', 'multiplechoice', 'multiselect'] as const;
const TEXT_TYPES = new Set(['text', 'textarea', 'password']);
const CHOICE_TYPES = new Set(['multiplechoice', 'multiselect']);

export type Question = Record<string, unknown> & { variable: string; type: string };
export interface SurveySpec {
  name?: string;
  description?: string;
  spec?: Question[];
}

export const passwordPurpose = (variable: string) => `survey.${variable}`;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInteger = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** The choices of a question, given as a list or as newline-separated text. */
export function choicesOf(question: Record<string, unknown>): string[] {
  const choices = question.choices;
  if (Array.isArray(choices)) return choices.map((c) => String(c));
  if (typeof choices === 'string') return choices.split('\n').filter((c) => c !== '');
  return [];
}

function questionProblem(item: unknown, index: number, seen: Set<string>): string | null {
  if (!isObject(item)) return `Survey question ${index} is not a json object.`;
  for (const key of ['type', 'question_name', 'variable', 'required']) {
    if (!(key in item)) return `'${key}' missing from survey question ${index}.`;
  }
  const type = item.type;
  if (typeof type !== 'string' || !(QUESTION_TYPES as readonly string[]).includes(type)) {
    return `'${show(type)}' in survey question ${index} is not one of '${QUESTION_TYPES.join(', ')}' allowed question types.`;
  }
  if (typeof item.variable !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(item.variable)) {
    return `'variable' in survey question ${index} must be a valid variable name.`;
  }
  if (seen.has(item.variable)) return `'variable' '${item.variable}' duplicated in survey question ${index}.`;
  seen.add(item.variable);
  if (typeof item.required !== 'boolean') return `'required' in survey question ${index} expected to be boolean.`;
  for (const key of ['min', 'max']) {
    const value = item[key];
    if (value === undefined || value === null || value === '') continue;
    if (type === 'float' ? !isNumber(value) : !isInteger(value)) return `'${key}' in survey question ${index} expected to be ${type === 'float' ? 'float' : 'int'}.`;
  }
  const def = item.default;
  const hasDefault = def !== undefined && def !== null && def !== '';
  if (def === ENCRYPTED && type !== 'password') {
    return `$encrypted$ is a reserved keyword for password question defaults, survey question ${index} is type ${type}.`;
  }
  if (item.dynamic_choices !== undefined && item.dynamic_choices !== null) {
    if (!CHOICE_TYPES.has(type)) return `'dynamic_choices' in survey question ${index} ('${item.variable}') is only allowed on multiplechoice and multiselect questions.`;
    const problem = dynamicChoicesProblem(item.dynamic_choices);
    if (problem) return `'dynamic_choices' in survey question ${index} ('${item.variable}'): ${problem}.`;
  }
  if (CHOICE_TYPES.has(type)) {
    const choices = choicesOf(item);
    // Choices from a source need no static list; one given anyway is only a fallback the console may show.
    const dynamic = dynamicSource(item) !== null;
    if (dynamic && (item.choices === undefined || item.choices === null || item.choices === '')) return dynamicDefaultProblem(type, def, index);
    if (!Array.isArray(item.choices) && typeof item.choices !== 'string') return `'choices' in survey question ${index} expected to be a list or a newline-separated string.`;
    if (dynamic) return dynamicDefaultProblem(type, def, index);
    if (!choices.length) return `'choices' in survey question ${index} must not be empty.`;
    if (hasDefault) {
      const defaults = type === 'multiselect' ? (Array.isArray(def) ? def.map(String) : String(def).split('\n').filter((d) => d !== '')) : [String(def)];
      if (defaults.some((d) => !choices.includes(d))) return `Default choice must be answered from the choices listed. (survey question ${index})`;
    }
    return null;
  }
  if (!hasDefault) return null;
  if (TEXT_TYPES.has(type) && typeof def !== 'string') return `Default value ${show(def)} in survey question ${index} expected to be string.`;
  if (type === 'integer' && !isInteger(def)) return `Default value ${show(def)} in survey question ${index} expected to be int.`;
  if (type === 'float' && !isNumber(def)) return `Default value ${show(def)} in survey question ${index} expected to be float.`;
  return null;
}

/** A dynamic question's default cannot be checked against choices that exist only at launch: only its type is. */
function dynamicDefaultProblem(type: string, def: unknown, index: number): string | null {
  if (def === undefined || def === null || def === '') return null;
  const ok = type === 'multiselect' ? typeof def === 'string' || (Array.isArray(def) && def.every((d) => typeof d === 'string')) : typeof def === 'string';
  return ok ? null : `Default value ${show(def)} in survey question ${index} expected to be ${type === 'multiselect' ? 'a list of strings or a newline-separated string' : 'string'}.`;
}

/** AWX's survey spec rules; null when the spec is acceptable, else {error: [message]}. */
export function validateSurveySpec(spec: unknown): FieldErrors | null {
  const fail = (message: string): FieldErrors => ({ error: [message] });
  if (!isObject(spec)) return fail(`Expected dict for field 'spec', received ${Array.isArray(spec) ? 'list' : typeof spec} type.`);
  if (!('name' in spec)) return fail("'name' missing from survey spec.");
  if (!('description' in spec)) return fail("'description' missing from survey spec.");
  if (!('spec' in spec)) return fail("'spec' missing from survey spec.");
  if (!Array.isArray(spec.spec)) return fail("'spec' must be a list of items.");
  if (!spec.spec.length) return fail("'spec' doesn't contain any items.");
  const seen = new Set<string>();
  for (const [index, item] of spec.spec.entries()) {
    const problem = questionProblem(item, index, seen);
    if (problem) return fail(problem);
  }
  return null;
}

/**
 * The spec as stored: password defaults and the header values of dynamic sources encrypted; a
 * default or header of $encrypted$ keeps what the same variable had in `previous`.
 */
export function encryptSurveyPasswords(spec: SurveySpec, previous: SurveySpec | null): SurveySpec {
  const before = new Map((previous?.spec ?? []).map((q) => [q.variable, q]));
  const questions = (spec.spec ?? []).map((asked) => {
    const q = encryptHeaders(asked, before.get(asked.variable)) as Question;
    if (q.type !== 'password' || q.default === undefined || q.default === null || q.default === '') return q;
    if (q.default === ENCRYPTED) {
      const old = before.get(q.variable);
      return { ...q, default: old?.type === 'password' && isEncryptedSecret(old.default) ? old.default : '' };
    }
    return { ...q, default: encryptSecret(passwordPurpose(q.variable), String(q.default)) };
  });
  return { ...spec, spec: questions };
}

/** The spec as shown: password defaults and the header values of dynamic sources as $encrypted$. */
export function maskSurveyPasswords(spec: SurveySpec): SurveySpec {
  if (!Array.isArray(spec.spec)) return spec;
  return { ...spec, spec: spec.spec.map((q) => maskHeaders(q.type === 'password' && q.default ? { ...q, default: ENCRYPTED } : q) as Question) };
}

/** A question's default in clear (password defaults decrypted), or undefined for none. */
export function clearDefault(question: Question): unknown {
  const def = question.default;
  if (def === undefined || def === null || def === '') return undefined;
  if (question.type === 'password' && isEncryptedSecret(def)) return decryptSecret(passwordPurpose(question.variable), def);
  if (question.type === 'multiselect' && typeof def === 'string') return def.split('\n').filter((d) => d !== '');
  return def;
}

/** Required questions without a default: what a launch must be given (variables_needed_to_start). */
export function variablesNeeded(spec: SurveySpec): string[] {
  return (spec.spec ?? []).filter((q) => q.required === true && hasNoDefault(q)).map((q) => q.variable);
}
const hasNoDefault = (q: Question) => q.default === undefined || q.default === null || q.default === '';

function answerProblem(q: Question, value: unknown): string | null {
  const name = q.variable;
  const min = q.min === '' || q.min === null ? undefined : (q.min as number | undefined);
  const max = q.max === '' || q.max === null ? undefined : (q.max as number | undefined);
  if (TEXT_TYPES.has(q.type)) {
    if (typeof value !== 'string') return `Value ${show(value)} for '${name}' expected to be a string.`;
    if (min !== undefined && value.length < min) return `'${name}' value ${q.type === 'password' ? '' : `${value} `}is too small (length is ${value.length} must be at least ${min}).`;
    if (max !== undefined && value.length > max) return `'${name}' value ${q.type === 'password' ? '' : `${value} `}is too large (must be no more than ${max}).`;
    return null;
  }
  if (q.type === 'integer' || q.type === 'float') {
    if (q.type === 'integer' ? !isInteger(value) : !isNumber(value)) {
      return `Value ${show(value)} for '${name}' expected to be ${q.type === 'integer' ? 'an integer' : 'a numeric type'}.`;
    }
    if (min !== undefined && (value as number) < min) return `'${name}' value ${show(value)} is too small (must be at least ${min}).`;
    if (max !== undefined && (value as number) > max) return `'${name}' value ${show(value)} is too large (must be no more than ${max}).`;
    return null;
  }
  if (dynamicSource(q)) return dynamicAnswerProblem(q, value, min, max);
  const choices = choicesOf(q);
  if (q.type === 'multiselect') {
    if (!Array.isArray(value)) return `'${name}' value is expected to be a list.`;
    const bad = value.find((v) => !choices.includes(String(v)));
    return bad === undefined ? null : `Value ${show(bad)} for '${name}' expected to be one of ${JSON.stringify(choices)}.`;
  }
  return choices.includes(String(value)) ? null : `Value ${show(value)} for '${name}' expected to be one of ${JSON.stringify(choices)}.`;
}

const MAX_DYNAMIC_ANSWER = 1024;
const MAX_DYNAMIC_PICKS = 500;

/**
 * An answer to a question whose choices come from a source: not checked against choices (they may
 * have changed since they were shown), but strings of bounded length, a list of them for multiselect.
 */
function dynamicAnswerProblem(q: Question, value: unknown, min: number | undefined, max: number | undefined): string | null {
  const name = q.variable;
  if (q.type === 'multiselect' && !Array.isArray(value)) return `'${name}' value is expected to be a list.`;
  if (value === '' && q.required) return `'${name}' value missing`;
  const picked = Array.isArray(value) ? value : [value];
  if (picked.length > MAX_DYNAMIC_PICKS) return `'${name}' value has more than ${MAX_DYNAMIC_PICKS} items.`;
  for (const item of picked) {
    if (typeof item !== 'string') return `Value ${show(item)} for '${name}' expected to be a string.`;
    const limit = max ?? MAX_DYNAMIC_ANSWER;
    if (min !== undefined && item.length < min) return `'${name}' value ${item} is too small (length is ${item.length} must be at least ${min}).`;
    if (item.length > limit) return `'${name}' value ${item.slice(0, 40)}... is too large (must be no more than ${limit}).`;
  }
  return null;
}

/**
 * Checks a launch's answers against the survey: `values` holds every survey variable the run gets
 * (answers, else defaults, password defaults decrypted; $encrypted$ for a password means its
 * default); `errors` the problems by variable. Variables outside the survey are left to the caller.
 */
export function validateSurveyAnswers(spec: SurveySpec, answers: Record<string, unknown>): { values: Record<string, unknown>; errors: FieldErrors } {
  const values: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const q of spec.spec ?? []) {
    let value = answers[q.variable];
    if (value === ENCRYPTED && q.type === 'password') value = undefined;
    if (value === undefined || value === null || (value === '' && !q.required)) {
      const def = clearDefault(q);
      if (def !== undefined) values[q.variable] = def;
      else if (q.required) errors[q.variable] = [`'${q.variable}' value missing`];
      else if (value === '') values[q.variable] = '';
      continue;
    }
    const problem = answerProblem(q, value);
    if (problem) errors[q.variable] = [problem];
    else values[q.variable] = value;
  }
  return { values, errors };
}

/** The password variables of a survey (a run's survey_passwords, hidden in its extra_vars). */
export function passwordVariables(spec: SurveySpec): string[] {
  return (spec.spec ?? []).filter((q) => q.type === 'password').map((q) => q.variable);
}
