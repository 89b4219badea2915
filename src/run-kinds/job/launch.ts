import type { RequestContext } from '../../api/context.ts';
import { hasObjectRole } from '../../api/access.ts';
import { forbidden, ValidationError } from '../../api/errors.ts';
import type { Queryable } from '../../db/database.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import { assertCanUseCredential } from '../../resources/credentials/credential-use.ts';
import { mayExecute } from '../../resources/job-templates/job-template-access.ts';
import { maxForks } from '../../resources/job-templates/job-template-hooks.ts';
import { activeSurvey } from '../../resources/job-templates/launch-description.ts';
import { parsePrompts, readPrompts } from './launch-prompts.ts';
import { JOB, jobPlan } from './create-job.ts';
import { templateLinks, type TemplateLinks } from './template-links.ts';
import type { Launcher } from '../../runs/launch.ts';
import { passwordsNeededFor, readCredentialPasswords } from '../../ansible/credential-passwords.ts';
import { checkLaunchObjects } from './launch-objects.ts';
import { templateExtraVars } from '../../resources/job-templates/survey-variables.ts';

/**
 * The credentials a launch runs with and the passwords they need: the prompted ones (each usable
 * by the caller) or the template's.
 */
async function launchCredentials(tx: Queryable, ctx: RequestContext, defaults: TemplateLinks, prompted: unknown): Promise<{ ids: number[]; needed: string[] }> {
  if (Array.isArray(prompted)) {
    for (const id of prompted as number[]) await assertCanUseCredential(ctx, tx, id, 'credentials');
    return { ids: prompted as number[], needed: await passwordsNeededFor(tx, prompted as number[]) };
  }
  return { ids: defaults.credentialIds, needed: defaults.passwordsNeeded };
}


/** Job columns from accepted prompts (the template's values stay for the rest). */
export function promptedColumns(accepted: Record<string, unknown>): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  for (const field of ['job_type', 'scm_branch', 'forks', 'limit', 'verbosity', 'job_tags', 'skip_tags', 'timeout', 'diff_mode', 'job_slice_count']) {
    if (accepted[field] !== undefined) columns[field] = accepted[field];
  }
  if (accepted.execution_environment !== undefined) columns.execution_environment_id = accepted.execution_environment;
  return columns;
}

/**
 * A launch of a job template (POST /job_templates/{id}/launch/): the caller may execute it, the
 * prompts its ask_*_on_launch flags allow are checked by the template's own field declarations,
 * survey answers and credential passwords are complete; the job takes the rest from the template.
 */
export const jobTemplateLauncher: Launcher<unknown, JobTemplateRow> = {
  kind: JOB,
  async plan(tx, ctx, template, body) {
    if (!template) throw new Error('a job template launch needs its template');
    if (!(await mayExecute(ctx, tx, template.id))) throw forbidden();
    const survey = activeSurvey(template);
    const prompts = readPrompts(template, body, (survey?.spec ?? []).map((q) => q.variable));
    const accepted = parsePrompts(prompts.accepted, maxForks(ctx));
    const inventoryId = (accepted.inventory as number | undefined) ?? template.inventory_id;
    if (!inventoryId) throw ValidationError.field('inventory', "Job Template 'inventory' is missing or undefined.");
    if (accepted.inventory !== undefined && !(await hasObjectRole(ctx, tx, 'inventory', inventoryId, 'use_role'))) {
      throw forbidden('You do not have permission to use this inventory.');
    }
    const defaults = await templateLinks(tx, template.id);
    const { ids: credentialIds, needed } = await launchCredentials(tx, ctx, defaults, accepted.credentials);
    const given = (body ?? {}) as Record<string, unknown>;
    const { passwords, missing } = readCredentialPasswords(needed, given.credential_passwords);
    if (missing.length) throw new ValidationError({ passwords_needed_to_start: missing });
    const plan = await jobPlan(tx, {
      template,
      launchType: 'manual',
      inventoryId,
      values: promptedColumns(accepted),
      ...templateExtraVars(template, prompts.extraVars),
      credentialIds,
      credentialPasswords: passwords,
      labelIds: accepted.labels !== undefined
        ? await checkLaunchObjects(tx, ctx, 'labels', accepted.labels as number[])
        : defaults.labelIds,
      instanceGroupIds: accepted.instance_groups !== undefined ? await checkLaunchObjects(tx, ctx, 'instance_groups', accepted.instance_groups as number[]) : [],
    });
    return { ...plan, ignored: prompts.ignored };
  },
};
