/** The extra vars of a launch of a template with a survey (job templates and workflows alike). */
import { ValidationError } from '../../api/errors.ts';

import { parseVariables } from '../../inventory/variables.ts';
import { decryptSecret, encryptSecret, isEncryptedSecret } from '../../secrets/encryption.ts';
import { activeSurvey, type SurveyTemplate } from './launch-description.ts';
import { passwordPurpose, passwordVariables, validateSurveyAnswers } from './survey-spec.ts';


/**
 * The extra vars a run stores: the template's, the given ones, the survey's answers checked (400
 * {variables_needed_to_start} otherwise), with survey passwords encrypted.
 */
export function templateExtraVars(template: SurveyTemplate & { extra_vars?: unknown }, given: Record<string, unknown>): { extraVars: Record<string, unknown>; surveyPasswords: Record<string, string> } {
  const survey = activeSurvey(template);
  const extraVars: Record<string, unknown> = { ...parseVariables(typeof template.extra_vars === 'string' ? template.extra_vars : null), ...given };
  const surveyPasswords: Record<string, string> = {};
  if (survey) {
    const { values, errors } = validateSurveyAnswers(survey, given);
    if (Object.keys(errors).length) throw new ValidationError({ variables_needed_to_start: Object.values(errors).flat() });
    Object.assign(extraVars, values);
    for (const variable of passwordVariables(survey)) {
      if (typeof extraVars[variable] !== 'string') continue;
      extraVars[variable] = encryptSecret(passwordPurpose(variable), extraVars[variable] as string);
      surveyPasswords[variable] = '$encrypted$';
    }
  }
  return { extraVars, surveyPasswords };
}

/** Saved extra_data (a schedule's) as a launch reads it: survey password answers, stored encrypted, in clear again. */
export function savedVariables(template: SurveyTemplate, extraData: Record<string, unknown>): Record<string, unknown> {
  const survey = activeSurvey(template);
  const given = { ...extraData };
  for (const variable of survey ? passwordVariables(survey) : []) {
    if (isEncryptedSecret(given[variable])) given[variable] = decryptSecret(passwordPurpose(variable), given[variable] as string);
  }
  return given;
}

/** The variables of `given` that are no question of the template's survey (all of them when it has none enabled), in order. */
export function variablesOutsideSurvey(template: SurveyTemplate, given: Record<string, unknown>): string[] {
  const asked = new Set((activeSurvey(template)?.spec ?? []).map((q) => q.variable));
  return Object.keys(given).filter((name) => !asked.has(name));
}

/** The refusal of variables that are no survey question (a catalog request gives only answers to the survey). */
export const surveyOnlyMessage = (names: readonly string[]) =>
  `${names.length === 1 ? 'Variable' : 'Variables'} ${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} not a question of the survey: a catalog request gives only answers to the survey.`;
