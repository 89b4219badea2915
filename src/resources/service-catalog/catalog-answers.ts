/**
 * A request's answers (docs/service-catalog.md#submit): only answers to the survey of the item's
 * template (and, for a workflow, to the surveys of its nodes' templates), checked as a launch
 * checks them (required, min and max, choices, dynamic choices), stored with the answers to
 * password questions encrypted and shown as $encrypted$.
 */
import { ValidationError } from '../../api/errors.ts';
import { ENCRYPTED } from '../../api/fields.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { parseVariables, variablesProblem } from '../../inventory/variables.ts';
import { encryptSecret, isEncryptedSecret } from '../../secrets/encryption.ts';
import { activeSurvey, type SurveyTemplate } from '../job-templates/launch-description.ts';
import { passwordPurpose, passwordVariables, validateSurveyAnswers, type SurveySpec } from '../job-templates/survey-spec.ts';
import { surveyOnlyMessage, variablesOutsideSurvey } from '../job-templates/survey-variables.ts';
import { nodeSurveys, type NodeSurvey } from '../workflow-job-templates/node-surveys.ts';

export type Answers = Record<string, unknown>;

const isMapping = (value: unknown): value is Answers => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Variables given as an object, or as JSON or YAML text holding a mapping (as a launch takes extra_vars). */
function readAnswers(value: unknown, field: string): Answers {
  if (value === undefined || value === null || value === '') return {};
  if (isMapping(value)) return value;
  if (typeof value !== 'string') throw ValidationError.field(field, 'Expected a mapping of variables (a JSON object, or JSON or YAML text).');
  const problem = variablesProblem(value);
  if (problem) throw ValidationError.field(field, problem);
  return parseVariables(value);
}

/** The answers as stored: each answer to a password question encrypted. */
function stored(survey: SurveySpec | null, answers: Answers): Answers {
  const out = { ...answers };
  for (const variable of survey ? passwordVariables(survey) : []) {
    if (typeof out[variable] === 'string') out[variable] = encryptSecret(passwordPurpose(variable), out[variable] as string);
  }
  return out;
}

/** Stored answers as shown: encrypted ones as $encrypted$. */
export function shownAnswers(answers: unknown): Answers {
  if (!isMapping(answers)) return {};
  return Object.fromEntries(Object.entries(answers).map(([name, value]) => [name, isEncryptedSecret(value) ? ENCRYPTED : value]));
}

/** Each node's stored answers as shown. */
export function shownNodeAnswers(byNode: unknown): Record<string, Answers> {
  if (!isMapping(byNode)) return {};
  return Object.fromEntries(Object.entries(byNode).map(([node, answers]) => [node, shownAnswers(answers)]));
}

/** The survey problems of answers, as a launch answers them (variables_needed_to_start); values: every survey variable the run gets. */
function surveyCheck(template: SurveyTemplate, answers: Answers): { values: Answers; problems: string[] } {
  const survey = activeSurvey(template);
  if (!survey) return { values: {}, problems: [] };
  const { values, errors } = validateSurveyAnswers(survey, answers);
  return { values, problems: Object.values(errors).flat() };
}

/** The node of a node_survey_data key: its identifier, or its id (as launch_data lists both). */
function nodeOf(surveys: Map<string, NodeSurvey>, key: string): NodeSurvey | undefined {
  return surveys.get(key) ?? (/^\d+$/.test(key) ? [...surveys.values()].find((n) => n.nodeId === Number(key)) : undefined);
}

export interface CheckedAnswers {
  extraVars: Answers;
  nodeSurveyData: Record<string, Answers>;
}

/**
 * Checks a request's answers against the item's template (`workflow`: a workflow job template)
 * and answers them as stored; throws the 400 a launch would answer, naming what is refused.
 */
export async function checkAnswers(db: Queryable, template: Row & SurveyTemplate, workflow: boolean, body: { extra_vars?: unknown; node_survey_data?: unknown }): Promise<CheckedAnswers> {
  const answers = readAnswers(body.extra_vars, 'extra_vars');
  const outside = variablesOutsideSurvey(template, answers);
  if (outside.length) throw ValidationError.field('extra_vars', surveyOnlyMessage(outside));
  const own = surveyCheck(template, answers);
  if (own.problems.length) throw new ValidationError({ variables_needed_to_start: own.problems });
  const byNode = body.node_survey_data ?? {};
  if (!isMapping(byNode)) throw ValidationError.field('node_survey_data', 'Expected an object of answers by workflow node (its id or identifier).');
  if (!workflow) {
    if (Object.keys(byNode).length) throw ValidationError.field('node_survey_data', "Only a workflow's catalog item takes answers for its nodes.");
    return { extraVars: stored(activeSurvey(template), answers), nodeSurveyData: {} };
  }
  const surveys = await nodeSurveys(db, template.id as number);
  // What a node's run sees (docs/service-catalog.md): the node's saved variables and these answers, under the workflow's variables.
  const workflowVariables = { ...parseVariables(typeof template.extra_vars === 'string' ? template.extra_vars : null), ...own.values };
  const savedNodeData = await db.query<{ identifier: string; extra_data: Answers }>('SELECT identifier, extra_data FROM workflow_job_template_nodes WHERE workflow_job_template_id = $1', [template.id]);
  const saved = new Map(savedNodeData.map((n) => [n.identifier, n.extra_data ?? {}]));
  const problems: string[] = [];
  const given = new Map<string, { key: string; answers: Answers }>();
  for (const [key, value] of Object.entries(byNode)) {
    const node = nodeOf(surveys, key);
    if (!node) problems.push(`${key}: no node of the workflow with this id or identifier has a template with a survey.`);
    else if (!isMapping(value)) problems.push(`${key}: expected a mapping of answers.`);
    else given.set(node.identifier, { key, answers: { ...given.get(node.identifier)?.answers, ...value } });
  }
  const nodeSurveyData: Record<string, Answers> = {};
  // Every node with a survey is checked, answered or not: its run would be refused a required answer missing.
  for (const node of surveys.values()) {
    const { key, answers } = given.get(node.identifier) ?? { key: node.identifier, answers: {} };
    const stray = variablesOutsideSurvey(node.template, answers);
    if (stray.length) {
      problems.push(`${key}: ${surveyOnlyMessage(stray)}`);
      continue;
    }
    const check = surveyCheck(node.template, { ...(saved.get(node.identifier) ?? {}), ...answers, ...workflowVariables });
    problems.push(...check.problems.map((p) => `${key}: ${p}`));
    if (Object.keys(answers).length) nodeSurveyData[node.identifier] = stored(node.survey, answers);
  }
  if (problems.length) throw new ValidationError({ node_survey_data: problems });
  return { extraVars: stored(activeSurvey(template), answers), nodeSurveyData };
}
