/**
 * A workflow job launched by a due schedule (launch_type scheduled): the schedule's saved prompts
 * that the workflow still asks for (the rest are ignored, as AWX's get_job_kwargs does), its saved
 * labels, its extra_data checked against the survey.
 */

import type { ScheduledLaunch } from '../../resources/schedules/schedulable.ts';
import { acceptPrompts, promptColumns, savedPrompts } from '../../runs/accept-prompts.ts';
import type { Launcher } from '../../runs/launch.ts';
import type { WorkflowJobTemplateRow } from '../../db/tables.ts';
import { workflowPlan } from './launch.ts';
import { WORKFLOW_TEMPLATE_FACET } from './prompts.ts';
import { WORKFLOW_JOB } from './workflow-job-kind-ref.ts';
import { savedVariables, templateExtraVars } from '../../resources/job-templates/survey-variables.ts';

export const scheduledWorkflowLauncher: Launcher<ScheduledLaunch, WorkflowJobTemplateRow> = {
  kind: WORKFLOW_JOB,
  async plan(tx, _ctx, template, { schedule, labelIds }) {
    if (!template) throw new Error('a scheduled launch needs its template');
    const saved = savedPrompts(WORKFLOW_TEMPLATE_FACET, { ...schedule, extra_data: savedVariables(template, schedule.extra_data ?? {}) }, { labels: labelIds });
    const { values, variables } = await acceptPrompts(tx, WORKFLOW_TEMPLATE_FACET, template, saved, { unasked: 'ignore' });
    return workflowPlan({
      template,
      launchType: 'scheduled',
      values: promptColumns(WORKFLOW_TEMPLATE_FACET, values),
      ...templateExtraVars(template, variables),
      labelIds: values.labels as number[] | undefined,
    });
  },
};
