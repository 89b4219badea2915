/**
 * A saved launch configuration (AWX's LaunchTimeConfig: a schedule's or a workflow node's prompts)
 * as a form edits it: the values it starts from, and what it sends.
 */
import { parseVariables } from '../../components/VariablesEditor';
import { asks, type LaunchDescription } from '../templates/launch/launch-plan';
import { initialAnswer, surveyProblems, surveyValues, type SurveyQuestion } from '../templates/survey/survey-types';
import { SCHEDULE_PROMPTS, type PromptValues } from './SchedulePrompts';

/** What a form shows of a saved configuration: its prompt fields, its extra_data split into survey answers and the other variables. */
export function initialPrompts(saved: Record<string, unknown> | undefined, spec: SurveyQuestion[]): PromptValues {
  const extra = (saved?.extra_data ?? {}) as Record<string, unknown>;
  const surveyVars = new Set(spec.map((q) => q.variable));
  const rest = Object.fromEntries(Object.entries(extra).filter(([k]) => !surveyVars.has(k) && k !== 'days'));
  return {
    fields: Object.fromEntries(SCHEDULE_PROMPTS.map(([f]) => [f, saved?.[f] ?? null])),
    extraVars: Object.keys(rest).length ? JSON.stringify(rest, null, 2) : '',
    extraVarsInvalid: false,
    survey: Object.fromEntries(spec.map((q) => [q.variable, q.variable in extra ? (Array.isArray(extra[q.variable]) ? extra[q.variable] : String(extra[q.variable])) : initialAnswer(q)])),
    days: extra.days !== undefined ? String(extra.days) : '30',
  };
}

/**
 * What the configuration saves: the prompt fields the template asks for and extra_data (extra
 * variables, survey answers, a cleanup's days), or the problems to fix first, by field
 * (survey answers as `survey.<variable>`).
 */
export function promptsBody(description: LaunchDescription | null, spec: SurveyQuestion[], prompts: PromptValues, takesDays: boolean):
  { problems: Record<string, string>; fields: Record<string, unknown>; extra: Record<string, unknown> } {
  const problems: Record<string, string> = {};
  if (prompts.extraVarsInvalid) problems.extra_data = 'Fix the syntax first.';
  for (const [variable, message] of Object.entries(surveyProblems(spec, prompts.survey))) problems[`survey.${variable}`] = message;
  const extra: Record<string, unknown> = {};
  if (!prompts.extraVarsInvalid && prompts.extraVars.trim()) Object.assign(extra, parseVariables(prompts.extraVars, 'yaml').value as object);
  Object.assign(extra, surveyValues(spec, prompts.survey));
  if (takesDays && prompts.days !== '') extra.days = Number(prompts.days);
  const fields = Object.fromEntries(
    SCHEDULE_PROMPTS.filter(([, flag]) => !!description && asks(description, flag)).map(([f]) => [f, prompts.fields[f] === '' ? null : prompts.fields[f]]),
  );
  return { problems, fields, extra };
}
