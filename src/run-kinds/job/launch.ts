import { forbidden, ValidationError } from '../../api/errors.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import { mayExecute } from '../../resources/job-templates/job-template-access.ts';
import { JOB, jobPlan } from './create-job.ts';
import { templateLinks } from './template-links.ts';
import type { Launcher } from '../../runs/launch.ts';
import { passwordsNeededFor, readCredentialPasswords } from '../../ansible/credential-passwords.ts';
import { acceptPrompts, promptColumns, promptsInBody } from '../../runs/accept-prompts.ts';
import { JOB_TEMPLATE_FACET } from './prompts.ts';
import { promptedInventories } from './launch-inventories.ts';
import { templateExtraVars } from '../../resources/job-templates/survey-variables.ts';

/**
 * A launch of a job template (POST /job_templates/{id}/launch/): the caller may execute it, the
 * prompts its ask_*_on_launch flags allow are read by acceptPrompts (each by the template's own
 * field declaration, each object named usable by the caller), survey answers and credential
 * passwords are complete; the job takes the rest from the template.
 */
export const jobTemplateLauncher: Launcher<unknown, JobTemplateRow> = {
  kind: JOB,
  async plan(tx, ctx, template, body) {
    if (!template) throw new Error('a job template launch needs its template');
    if (!(await mayExecute(ctx, tx, template.id))) throw forbidden();
    const input = promptsInBody(body);
    const prompts = await acceptPrompts(tx, JOB_TEMPLATE_FACET, template, input, { unasked: 'ignore', user: ctx, parse: true });
    const accepted = prompts.values;
    const inventoryId = (accepted.inventory as number | undefined) ?? template.inventory_id;
    if (!inventoryId) throw ValidationError.field('inventory', "Job Template 'inventory' is missing or undefined.");
    const extraInventoryIds = await promptedInventories(tx, ctx, template, input, prompts.ignored);
    const defaults = await templateLinks(tx, template.id);
    const credentialIds = (accepted.credentials as number[] | undefined) ?? defaults.credentialIds;
    const needed = accepted.credentials ? await passwordsNeededFor(tx, credentialIds) : defaults.passwordsNeeded;
    const { passwords, missing } = readCredentialPasswords(needed, input.credential_passwords);
    if (missing.length) throw new ValidationError({ passwords_needed_to_start: missing });
    const plan = await jobPlan(tx, {
      template,
      launchType: 'manual',
      inventoryId,
      extraInventoryIds,
      values: promptColumns(JOB_TEMPLATE_FACET, accepted),
      ...templateExtraVars(template, prompts.variables),
      credentialIds,
      credentialPasswords: passwords,
      labelIds: (accepted.labels as number[] | undefined) ?? defaults.labelIds,
      instanceGroupIds: (accepted.instance_groups as number[] | undefined) ?? [],
    });
    return { ...plan, ignored: prompts.ignored };
  },
};
