/**
 * A schedule's saved prompts, checked against its template as a launch would check them (AWX's
 * LaunchConfigurationBaseSerializer.validate), by acceptPrompts with the template kind's prompts: a
 * prompt needs its ask_*_on_launch flag, extra_data follows the template's survey and
 * ask_variables_on_launch, each object named must be one the caller may use; a system job takes
 * only its options.
 */
import type { RequestContext } from '../../api/context.ts';
import { ValidationError, type FieldErrors } from '../../api/errors.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { acceptPrompts } from '../../runs/accept-prompts.ts';
import { asks } from '../../runs/prompts.ts';
import { activeSurvey } from '../job-templates/launch-description.ts';
import { validateSurveyAnswers } from '../job-templates/survey-spec.ts';
import { systemJobVariableProblems } from '../system-job-templates/system-job-options.ts';
import { scheduleKindsOf, type ScheduleKinds } from './schedulable.ts';

/** Whether the template lets a launch choose this prompt (a template kind without prompts lets none). */
export const allowsPrompt = (kinds: ScheduleKinds, kind: string, template: Row, field: string): boolean => {
  const spec = kinds.facet(kind)?.prompts.find((p) => p.field === field);
  return Boolean(spec && asks(template, spec));
};

const refusals = async (check: () => Promise<unknown>): Promise<FieldErrors> => {
  try {
    await check();
    return {};
  } catch (err) {
    if (err instanceof ValidationError) return err.errors;
    throw err;
  }
};

/**
 * Problems of the saved prompts (`prompts`, by field, the request's over the stored; null keeps the
 * template's value) and of `extraData` (survey passwords in clear). Objects the request names
 * (`changed`) must be ones the caller may use (403).
 */
export async function promptProblems(
  tx: Queryable, ctx: RequestContext, kind: string, template: Row, prompts: Record<string, unknown>, extraData: Record<string, unknown>, changed: readonly string[],
): Promise<FieldErrors> {
  const facet = scheduleKindsOf(ctx.service).facet(kind);
  const withVariables = facet ? { ...prompts, extra_vars: extraData } : prompts;
  const errors = await refusals(() => acceptPrompts(tx, facet, template, withVariables, { unasked: 'refuse' }));
  if (facet) {
    const survey = activeSurvey(template);
    const found = survey ? Object.values(validateSurveyAnswers(survey, extraData).errors).flat() : [];
    if (found.length) errors.variables_needed_to_start = found;
  } else if (kind === 'system_job_template') {
    const problems = systemJobVariableProblems(String(template.job_type), extraData);
    if (problems.length) errors.extra_data = problems;
  } else if (Object.keys(extraData).length) {
    errors.extra_data = [`Variables ${Object.keys(extraData).join(', ')} provided, but this template cannot accept variables.`];
  }
  if (Object.keys(errors).length) return errors;
  const named = Object.fromEntries(Object.entries(prompts).filter(([field]) => changed.includes(field)));
  await acceptPrompts(tx, facet, template, named, { unasked: 'refuse', user: ctx });
  return {};
}
