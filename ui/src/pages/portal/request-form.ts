import type { ApiAnswer } from '../../api/types';
import { ApiError } from '../../api/errors';
import { placeSurveyMessages, type SurveyQuestion, type SurveySpec } from '../templates/survey/survey-types';

export type LaunchData = ApiAnswer<'/api/v2/service_catalog_items/{id}/launch_data/'>;

/** A survey of launch_data's as the form shows it: the template's own, or a workflow node's. */
export interface FormSurvey {
  /** '' for the template's own survey; the node's identifier otherwise. */
  node: string;
  title: string;
  spec: SurveyQuestion[];
}

const questionsOf = (survey: unknown): SurveyQuestion[] => ((survey as SurveySpec | null)?.spec ?? []);

/** The surveys a request answers, the template's first, then each node's (as its identifier names it). */
export function formSurveys(data: LaunchData): FormSurvey[] {
  const surveys: FormSurvey[] = [];
  const own = questionsOf(data.survey_spec);
  if (own.length) surveys.push({ node: '', title: '', spec: own });
  for (const node of data.node_surveys) {
    const spec = questionsOf(node.survey_spec);
    if (spec.length) surveys.push({ node: node.identifier, title: node.identifier, spec });
  }
  return surveys;
}

/** Error and answer keys of a question: survey.<variable> for the template's, node.<identifier>.<variable> for a node's. */
export const answerKey = (survey: Pick<FormSurvey, 'node'>, variable: string) => (survey.node ? `node.${survey.node}.${variable}` : `survey.${variable}`);

/** Messages of a refused submit by the form's keys (above, and justification), and those that belong to no field. */
export function placeSubmitErrors(err: unknown, surveys: FormSurvey[]): { errors: Record<string, string>; rest: string[] } {
  const errors: Record<string, string> = {};
  const rest: string[] = [];
  if (!(err instanceof ApiError) || err.status !== 400) return { errors, rest };
  const body = err.body as Record<string, unknown>;
  const messages = (field: string) => (Array.isArray(body[field]) ? (body[field] as unknown[]).map(String) : body[field] === undefined ? [] : [String(body[field])]);
  const place = (survey: FormSurvey | undefined, list: string[]) => {
    if (!survey) return void rest.push(...list);
    const { placed, rest: unplaced } = placeSurveyMessages(survey.spec, list);
    for (const [variable, text] of Object.entries(placed)) errors[answerKey(survey, variable)] = text;
    rest.push(...unplaced);
  };
  place(surveys.find((s) => !s.node), messages('variables_needed_to_start'));
  // A node's problems read "<identifier>: <problem>".
  for (const message of messages('node_survey_data')) {
    const survey = surveys.find((s) => s.node && message.startsWith(`${s.node}: `));
    if (survey) place(survey, [message.slice(survey.node.length + 2)]);
    else rest.push(message);
  }
  for (const [field, text] of Object.entries(err.fieldErrors)) {
    if (field === 'justification') errors.justification = text;
    else if (field !== 'variables_needed_to_start' && field !== 'node_survey_data') rest.push(`${field}: ${text}`);
  }
  return { errors, rest };
}
