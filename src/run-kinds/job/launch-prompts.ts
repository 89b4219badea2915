import { ValidationError } from '../../api/errors.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import type { ASK_FIELDS } from '../../resources/job-templates/job-template.resource.ts';
import { parseVariables, variablesProblem } from '../../inventory/variables.ts';
import { optionValueErrors, PLAYBOOK_OPTION_FIELDS } from '../../ansible/option-values.ts';
import { branchProblem } from '../../projects/git-values.ts';

/** Launch-time fields and the ask_*_on_launch flag that allows each (AWX's names). */
const PROMPTS: Record<string, (typeof ASK_FIELDS)[number]> = {
  inventory: 'inventory', credentials: 'credential', limit: 'limit', job_tags: 'tags', skip_tags: 'skip_tags',
  job_type: 'job_type', verbosity: 'verbosity', diff_mode: 'diff_mode', scm_branch: 'scm_branch', forks: 'forks',
  timeout: 'timeout', job_slice_count: 'job_slice_count', execution_environment: 'execution_environment', labels: 'labels',
  instance_groups: 'instance_groups',
};

export interface Prompts {
  accepted: Record<string, unknown>;
  extraVars: Record<string, unknown>;
  ignored: Record<string, unknown>;
}

/**
 * Splits a launch body into what the template lets the launcher choose and what it ignores (as
 * AWX: a prompt without its ask_*_on_launch flag is ignored and reported back). Extra vars are
 * taken when ask_variables_on_launch is set; with a survey, its variables are always taken.
 */
export function readPrompts(template: JobTemplateRow, body: unknown, surveyVariables: readonly string[]): Prompts {
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    throw new ValidationError({ __all__: ['Expected a JSON object.'] });
  }
  const input = (body ?? {}) as Record<string, unknown>;
  const accepted: Record<string, unknown> = {};
  const ignored: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(input)) {
    const flag = PROMPTS[field];
    if (!flag) continue;
    if (template[`ask_${flag}_on_launch`] === true) accepted[field] = value;
    else ignored[field] = value;
  }
  let extraVars: Record<string, unknown> = {};
  if (input.extra_vars !== undefined) {
    const text = typeof input.extra_vars === 'string' ? input.extra_vars : JSON.stringify(input.extra_vars);
    const problem = variablesProblem(text);
    if (problem) throw ValidationError.field('extra_vars', problem);
    const given = parseVariables(text);
    if (template.ask_variables_on_launch) extraVars = given;
    else {
      extraVars = Object.fromEntries(Object.entries(given).filter(([k]) => surveyVariables.includes(k)));
      const rest = Object.fromEntries(Object.entries(given).filter(([k]) => !surveyVariables.includes(k)));
      if (Object.keys(rest).length) ignored.extra_vars = rest;
    }
  }
  return { accepted, extraVars, ignored };
}

/** A prompted value checked as the template field would be (limit and tags: no option, file or Jinja). */
export function checkPromptValues(accepted: Record<string, unknown>, maxForks: number): void {
  const errors: Record<string, string[]> = {};
  const int = (name: string, min: number, max = 2_147_483_647) => {
    const v = accepted[name];
    if (v !== undefined && (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)) errors[name] = [`Ensure this value is an integer between ${min} and ${max}.`];
  };
  int('verbosity', 0, 5);
  int('forks', 0, maxForks);
  int('timeout', 0);
  int('job_slice_count', 1);
  int('inventory', 1);
  if (accepted.job_type !== undefined && !['run', 'check'].includes(accepted.job_type as string)) errors.job_type = [`"${String(accepted.job_type)}" is not a valid choice.`];
  for (const name of ['limit', 'job_tags', 'skip_tags', 'scm_branch']) {
    if (accepted[name] !== undefined && typeof accepted[name] !== 'string') errors[name] = ['Not a valid string.'];
  }
  const branch = typeof accepted.scm_branch === 'string' ? branchProblem(accepted.scm_branch) : null;
  if (branch) errors.scm_branch = [branch];
  for (const [name, problem] of Object.entries(optionValueErrors(accepted, PLAYBOOK_OPTION_FIELDS))) errors[name] ??= problem;
  if (accepted.diff_mode !== undefined && typeof accepted.diff_mode !== 'boolean') errors.diff_mode = ['Must be a valid boolean.'];
  const ids = (name: string, noun: string) => {
    const v = accepted[name];
    if (v !== undefined && (!Array.isArray(v) || !v.every((c) => Number.isInteger(c) && c > 0))) errors[name] = [`Expected a list of ${noun} ids.`];
  };
  ids('credentials', 'credential');
  ids('labels', 'label');
  ids('instance_groups', 'instance group');
  if (Object.keys(errors).length) throw new ValidationError(errors);
}
