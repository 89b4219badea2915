/**
 * A job template launched by a webhook delivery (AWX's WebhookReceiverBase): as the system, with
 * the template's own inventory, credentials, labels and extra vars, and the delivery's
 * variables. The receiver checked the key; nothing here asks who the caller is.
 */
import { ApiError } from '../../api/errors.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import type { Launcher } from '../../runs/launch.ts';
import type { WebhookLaunch } from '../../runs/webhooks/delivery-launch.ts';
import { passwordsNeededFor } from '../../ansible/credential-passwords.ts';
import { templateCredentialIds } from '../../resources/job-templates/template-relations.ts';
import { JOB, jobPlan, templateLabelIds } from './create-job.ts';
import { templateExtraVars } from '../../resources/job-templates/survey-variables.ts';
import { memoized } from '../../runs/launch-memo.ts';
import { acceptPrompts } from '../../runs/accept-prompts.ts';
import { JOB_TEMPLATE_FACET } from './prompts.ts';

export const jobWebhookLauncher: Launcher<WebhookLaunch, JobTemplateRow> = {
  kind: JOB,
  async plan(tx, _ctx, template, input) {
    if (!template) throw new Error('a webhook launch needs its template');
    if (!template.inventory_id) throw new ApiError(400, { detail: "Job Template 'inventory' is missing or undefined." });
    const { memo } = input;
    // The delivery's variables are no prompts: AWX passes them whatever the template asks.
    const { variables } = await acceptPrompts(tx, JOB_TEMPLATE_FACET, template, { extra_vars: input.extraVars }, { unasked: 'ignore', takeVariables: true });
    const credentialIds = await memoized(memo, `credentials:${template.id}`, () => templateCredentialIds(tx, template.id));
    const passwordsNeeded = await memoized(memo, `passwords:${template.id}`, () => passwordsNeededFor(tx, credentialIds));
    if (passwordsNeeded.length) throw new ApiError(400, { detail: 'Cannot start automatically, user input required!' });
    return jobPlan(tx, {
      template,
      launchType: 'webhook',
      inventoryId: template.inventory_id,
      values: {},
      ...templateExtraVars(template, variables),
      credentialIds,
      credentialPasswords: {},
      labelIds: await memoized(memo, `labels:${template.id}`, () => templateLabelIds(tx, template.id)),
      instanceGroupIds: [],
      memo,
    });
  },
};
