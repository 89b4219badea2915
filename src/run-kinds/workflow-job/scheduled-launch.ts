/**
 * A workflow job launched by a due schedule (launch_type scheduled): the schedule's saved prompts
 * that the workflow still asks for (the rest are ignored, as AWX's get_job_kwargs does), its saved
 * labels when labels are asked, its extra_data checked against the survey.
 */
import type { Row } from '../../db/database.ts';
import { activeSurvey } from '../../resources/job-templates/launch-description.ts';
import { passwordPurpose, passwordVariables } from '../../resources/job-templates/survey-spec.ts';
import type { ScheduledLaunch } from '../../resources/schedules/schedulable.ts';
import type { Launcher } from '../../runs/launch.ts';
import { decryptSecret, isEncryptedSecret } from '../../secrets/encryption.ts';
import { workflowExtraVars, workflowPlan } from './launch.ts';
import { WORKFLOW_JOB } from './workflow-job-kind-ref.ts';

/** Saved prompt columns of a schedule and the ask flag of a workflow that allows each. */
const PROMPTS: Record<string, string> = { inventory_id: 'inventory', limit: 'limit', scm_branch: 'scm_branch', job_tags: 'tags', skip_tags: 'skip_tags' };

/** The schedule's extra_data a launch takes: survey answers (passwords decrypted again), the rest only when variables are asked. */
function scheduledVariables(template: Row, extraData: Record<string, unknown>): Record<string, unknown> {
  const survey = activeSurvey(template);
  const surveyVariables = new Set((survey?.spec ?? []).map((q) => q.variable));
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(extraData)) if (template.ask_variables_on_launch || surveyVariables.has(key)) given[key] = value;
  for (const variable of survey ? passwordVariables(survey) : []) {
    if (isEncryptedSecret(given[variable])) given[variable] = decryptSecret(passwordPurpose(variable), given[variable] as string);
  }
  return given;
}

export const scheduledWorkflowLauncher: Launcher<ScheduledLaunch, Row> = {
  kind: WORKFLOW_JOB,
  async plan(_tx, _ctx, template, { schedule, labelIds }) {
    if (!template) throw new Error('a scheduled launch needs its template');
    const values: Record<string, unknown> = {};
    for (const [column, flag] of Object.entries(PROMPTS)) {
      const value = schedule[column];
      if (value !== null && value !== undefined && value !== '' && template[`ask_${flag}_on_launch`] === true) values[column] = value;
    }
    return workflowPlan({
      template,
      launchType: 'scheduled',
      values,
      ...workflowExtraVars(template, scheduledVariables(template, schedule.extra_data ?? {})),
      labelIds: labelIds.length && template.ask_labels_on_launch ? labelIds : undefined,
    });
  },
};
