import { FieldProblem } from '../../api/fields.ts';
import { ValidationError, type FieldErrors } from '../../api/errors.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import { jobTemplates, type ASK_FIELDS } from '../../resources/job-templates/job-template.resource.ts';
import { templateValueProblems } from '../../resources/job-templates/job-template-hooks.ts';
import { parseVariables, variablesProblem } from '../../inventory/variables.ts';

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

const RELATED_PROMPTS: Record<string, string> = { credentials: 'credential', labels: 'label', instance_groups: 'instance group' };

/**
 * The accepted prompts parsed by the job template's own field declarations (a prompted limit is
 * checked as the template's limit is, "5" becomes 5 as it would on the template) and by its checks
 * beyond them (templateValueProblems); the lists of related objects must be lists of ids.
 */
export function parsePrompts(accepted: Record<string, unknown>, maxForks: number): Record<string, unknown> {
  const parsed: Record<string, unknown> = {};
  const errors: FieldErrors = {};
  for (const [name, value] of Object.entries(accepted)) {
    const noun = RELATED_PROMPTS[name];
    if (noun) {
      if (Array.isArray(value) && value.every((id) => Number.isInteger(id) && id > 0)) parsed[name] = value;
      else errors[name] = [`Expected a list of ${noun} ids.`];
      continue;
    }
    try {
      parsed[name] = jobTemplates.fields[name].parse(value);
    } catch (err) {
      if (!(err instanceof FieldProblem)) throw err;
      errors[name] = [err.message];
    }
  }
  for (const [name, problem] of Object.entries(templateValueProblems(parsed, maxForks))) errors[name] ??= problem;
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return parsed;
}
