/**
 * A schedule's saved prompts, checked against its template as a launch would check them (AWX's
 * LaunchConfigurationBaseSerializer.validate): a prompt needs its ask_*_on_launch flag, extra_data
 * follows the template's survey and ask_variables_on_launch; a system job takes only its options.
 */
import type { FieldErrors } from '../../api/errors.ts';

import { activeSurvey } from '../job-templates/launch-description.ts';
import { validateSurveyAnswers } from '../job-templates/survey-spec.ts';
import { systemJobVariableProblems } from '../system-job-templates/system-job-options.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** Saved prompt fields and the ask_*_on_launch flag that allows each (AWX's names). */
export const PROMPT_FLAGS: Record<string, string> = {
  inventory: 'inventory', scm_branch: 'scm_branch', job_type: 'job_type', job_tags: 'tags', skip_tags: 'skip_tags', limit: 'limit',
  diff_mode: 'diff_mode', verbosity: 'verbosity', forks: 'forks', job_slice_count: 'job_slice_count', timeout: 'timeout',
  execution_environment: 'execution_environment', credentials: 'credential', labels: 'labels', instance_groups: 'instance_groups',
};

const TITLES: Record<string, string> = { job_template: 'Job Template', workflow_job_template: 'Workflow Job Template' };

/** Whether the template lets a launch choose this prompt. */
export const allowsPrompt = (template: AnyRow, prompt: string) => template[`ask_${PROMPT_FLAGS[prompt]}_on_launch`] === true;

/** Problems of the prompts given (null or absent prompts keep the template's value). */
export function promptProblems(kind: string, template: AnyRow, prompts: Record<string, unknown>): FieldErrors {
  const errors: FieldErrors = {};
  for (const [field, value] of Object.entries(prompts)) {
    if (!(field in PROMPT_FLAGS) || value === null || value === undefined) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    if (!allowsPrompt(template, field)) errors[field] = ['Field is not configured to prompt on launch.'];
  }
  Object.assign(errors, extraDataProblems(kind, template, (prompts.extra_data ?? {}) as Record<string, unknown>));
  return errors;
}

function extraDataProblems(kind: string, template: AnyRow, extraData: Record<string, unknown>): FieldErrors {
  const keys = Object.keys(extraData);
  if (kind === 'system_job_template') {
    const problems = systemJobVariableProblems(template.job_type, extraData);
    return problems.length ? { extra_data: problems } : {};
  }
  if (!('ask_variables_on_launch' in template)) {
    return keys.length ? { extra_data: [`Variables ${keys.join(', ')} provided, but this template cannot accept variables.`] } : {};
  }
  const errors: FieldErrors = {};
  const survey = activeSurvey(template);
  const surveyVariables = new Set((survey?.spec ?? []).map((q) => q.variable));
  if (survey) {
    const { errors: surveyErrors } = validateSurveyAnswers(survey, extraData);
    const found = Object.values(surveyErrors).flat();
    if (found.length) errors.variables_needed_to_start = found;
  }
  const rest = keys.filter((k) => !surveyVariables.has(k));
  if (rest.length && !template.ask_variables_on_launch) {
    errors.extra_data = [
      `Variables ${rest.join(', ')} are not allowed on launch. Check the Prompt on Launch setting on the ${TITLES[kind] ?? 'Template'} to include Extra Variables.`,
    ];
  }
  return errors;
}
