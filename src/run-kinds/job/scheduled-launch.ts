/**
 * A job launched by a due schedule (launch_type scheduled): the schedule's saved prompts that the
 * template still asks for (AWX ignores the rest, as its get_job_kwargs does), its credentials,
 * labels and instance groups, its extra_data checked against the survey. A launch that would need
 * passwords is refused.
 */
import { ValidationError } from '../../api/errors.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import { passwordsNeededFor } from '../../ansible/credential-passwords.ts';
import type { ScheduledLaunch } from '../../resources/schedules/schedulable.ts';
import type { Launcher } from '../../runs/launch.ts';
import { acceptPrompts, promptColumns, savedPrompts } from '../../runs/accept-prompts.ts';
import { JOB, jobPlan } from './create-job.ts';
import { JOB_TEMPLATE_FACET } from './prompts.ts';
import { templateLinks } from './template-links.ts';
import { savedVariables, templateExtraVars } from '../../resources/job-templates/survey-variables.ts';

export const scheduledJobLauncher: Launcher<ScheduledLaunch, JobTemplateRow> = {
  kind: JOB,
  async plan(tx, _ctx, template, { schedule, credentialIds, labelIds, instanceGroupIds }) {
    if (!template) throw new Error('a scheduled launch needs its template');
    const saved = savedPrompts(JOB_TEMPLATE_FACET, { ...schedule, extra_data: savedVariables(template, schedule.extra_data ?? {}) }, {
      credentials: credentialIds, labels: labelIds, instance_groups: instanceGroupIds,
    });
    const { values, variables } = await acceptPrompts(tx, JOB_TEMPLATE_FACET, template, saved, { unasked: 'ignore' });
    const inventoryId = (values.inventory as number | undefined) ?? template.inventory_id;
    if (!inventoryId) throw ValidationError.field('inventory', "Job Template 'inventory' is missing or undefined.");
    const defaults = await templateLinks(tx, template.id);
    const credentials = (values.credentials as number[] | undefined) ?? defaults.credentialIds;
    const needed = await passwordsNeededFor(tx, credentials);
    if (needed.length) throw new ValidationError({ passwords_needed_to_start: needed });
    return jobPlan(tx, {
      template,
      launchType: 'scheduled',
      inventoryId,
      values: promptColumns(JOB_TEMPLATE_FACET, values),
      ...templateExtraVars(template, variables),
      credentialIds: credentials,
      credentialPasswords: {},
      labelIds: (values.labels as number[] | undefined) ?? defaults.labelIds,
      instanceGroupIds: (values.instance_groups as number[] | undefined) ?? [],
    });
  },
};
