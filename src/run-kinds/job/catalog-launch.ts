/**
 * A job launched by a service catalog request (docs/service-catalog.md): the requester's run
 * (launch_type manual, as AWX has no other fitting value), with the item's authority instead of
 * the requester's role on the template. It takes the template's own inventory, credentials and
 * labels, and of the request only answers to the template's survey.
 */
import { ValidationError } from '../../api/errors.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import type { Launcher } from '../../runs/launch.ts';
import type { CatalogLaunch } from '../../runs/run-kind.ts';
import { assertItemOffers, catalogTrigger } from '../../runs/catalog-launch.ts';
import { acceptPrompts } from '../../runs/accept-prompts.ts';
import { savedVariables, surveyOnlyMessage, templateExtraVars, variablesOutsideSurvey } from '../../resources/job-templates/survey-variables.ts';
import { JOB, jobPlan } from './create-job.ts';
import { JOB_TEMPLATE_FACET } from './prompts.ts';
import { templateLinks } from './template-links.ts';

export const catalogJobLauncher: Launcher<CatalogLaunch, JobTemplateRow> = {
  kind: JOB,
  async plan(tx, _ctx, template, launch) {
    if (!template) throw new Error('a catalog launch needs its template');
    assertItemOffers(launch, 'job_template_id', template);
    // Only the survey's questions, whatever ask_variables_on_launch says (the request was checked so when made; the survey may have changed since).
    const outside = variablesOutsideSurvey(template, launch.answers);
    if (outside.length) throw ValidationError.field('extra_vars', surveyOnlyMessage(outside));
    const answers = savedVariables(template, launch.answers);
    const { variables } = await acceptPrompts(tx, JOB_TEMPLATE_FACET, template, { extra_vars: answers }, { unasked: 'ignore' });
    if (!template.inventory_id) throw ValidationError.field('inventory', "Job Template 'inventory' is missing or undefined.");
    const links = await templateLinks(tx, template.id);
    if (links.passwordsNeeded.length) throw new ValidationError({ passwords_needed_to_start: links.passwordsNeeded });
    const plan = await jobPlan(tx, {
      template,
      launchType: 'manual',
      inventoryId: template.inventory_id,
      values: {},
      ...templateExtraVars(template, variables),
      credentialIds: links.credentialIds,
      credentialPasswords: {},
      labelIds: links.labelIds,
      instanceGroupIds: [],
    });
    return { ...plan, trigger: catalogTrigger(launch) };
  },
};
