/**
 * A job launched by a due schedule (launch_type scheduled): the schedule's saved prompts that the
 * template still asks for (AWX ignores the rest, as its get_job_kwargs does), its credentials and
 * labels, its extra_data checked against the survey. A launch that would need passwords is refused.
 */
import { ValidationError } from '../../api/errors.ts';
import type { Queryable } from '../../db/database.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import { passwordsNeededFor } from '../../ansible/credential-passwords.ts';
import type { ScheduledLaunch } from '../../resources/schedules/schedulable.ts';
import type { Launcher } from '../../runs/launch.ts';
import { JOB, jobPlan } from './create-job.ts';
import { promptedColumns } from './launch.ts';
import { templateLinks } from './template-links.ts';
import { scheduledVariables, templateExtraVars } from '../../resources/job-templates/survey-variables.ts';

const FLAGS: Record<string, string> = {
  inventory: 'inventory', scm_branch: 'scm_branch', job_type: 'job_type', job_tags: 'tags', skip_tags: 'skip_tags', limit: 'limit',
  diff_mode: 'diff_mode', verbosity: 'verbosity', forks: 'forks', job_slice_count: 'job_slice_count', timeout: 'timeout',
  execution_environment: 'execution_environment',
};

const asks = (template: JobTemplateRow, flag: string) => (template as Record<string, unknown>)[`ask_${flag}_on_launch`] === true;


async function scheduledCredentials(tx: Queryable, template: JobTemplateRow, saved: number[], defaults: number[]): Promise<number[]> {
  const ids = saved.length && template.ask_credential_on_launch ? saved : defaults;
  const needed = await passwordsNeededFor(tx, ids);
  if (needed.length) throw new ValidationError({ passwords_needed_to_start: needed });
  return ids;
}

export const scheduledJobLauncher: Launcher<ScheduledLaunch, JobTemplateRow> = {
  kind: JOB,
  async plan(tx, _ctx, template, { schedule, credentialIds, labelIds, instanceGroupIds }) {
    if (!template) throw new Error('a scheduled launch needs its template');
    const accepted: Record<string, unknown> = {};
    for (const [field, flag] of Object.entries(FLAGS)) {
      const value = schedule[field === 'inventory' || field === 'execution_environment' ? `${field}_id` : field];
      if (value !== null && value !== undefined && asks(template, flag)) accepted[field] = value;
    }
    const inventoryId = (accepted.inventory as number | undefined) ?? template.inventory_id;
    if (!inventoryId) throw ValidationError.field('inventory', "Job Template 'inventory' is missing or undefined.");
    const defaults = await templateLinks(tx, template.id);
    return jobPlan(tx, {
      template,
      launchType: 'scheduled',
      inventoryId,
      values: promptedColumns(accepted),
      ...templateExtraVars(template, scheduledVariables(template, schedule.extra_data ?? {})),
      credentialIds: await scheduledCredentials(tx, template, credentialIds, defaults.credentialIds),
      credentialPasswords: {},
      labelIds: labelIds.length && template.ask_labels_on_launch ? labelIds : defaults.labelIds,
      instanceGroupIds: template.ask_instance_groups_on_launch ? instanceGroupIds : [],
    });
  },
};
