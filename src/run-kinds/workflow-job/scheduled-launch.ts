/**
 * A workflow job launched by a due schedule (launch_type scheduled): the schedule's saved prompts
 * that the workflow still asks for (the rest are ignored, as AWX's get_job_kwargs does), its saved
 * labels when labels are asked, its extra_data checked against the survey.
 */

import type { ScheduledLaunch } from '../../resources/schedules/schedulable.ts';
import type { Launcher } from '../../runs/launch.ts';
import { workflowPlan } from './launch.ts';
import { WORKFLOW_JOB } from './workflow-job-kind-ref.ts';
import { scheduledVariables, templateExtraVars } from '../../resources/job-templates/survey-variables.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

/** Saved prompt columns of a schedule and the ask flag of a workflow that allows each. */
const PROMPTS: Record<string, string> = { inventory_id: 'inventory', limit: 'limit', scm_branch: 'scm_branch', job_tags: 'tags', skip_tags: 'skip_tags' };


export const scheduledWorkflowLauncher: Launcher<ScheduledLaunch, AnyRow> = {
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
      ...templateExtraVars(template, scheduledVariables(template, schedule.extra_data ?? {})),
      labelIds: labelIds.length && template.ask_labels_on_launch ? labelIds : undefined,
    });
  },
};
