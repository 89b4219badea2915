/**
 * A workflow job template launched by a webhook delivery (AWX's WebhookReceiverBase for
 * workflows): as the system, with the template's own values, labels and extra vars, and the
 * delivery's variables, which the workflow passes on to its nodes' jobs. The receiver checked
 * the key; nothing here asks who the caller is.
 */
import type { WorkflowJobTemplateRow } from '../../db/tables.ts';
import type { Launcher } from '../../runs/launch.ts';
import type { WebhookLaunch } from '../../runs/webhooks/delivery-launch.ts';
import { workflowPlan } from './launch.ts';
import { WORKFLOW_JOB } from './workflow-job-kind-ref.ts';
import { acceptPrompts } from '../../runs/accept-prompts.ts';
import { WORKFLOW_TEMPLATE_FACET } from './prompts.ts';
import { templateExtraVars } from '../../resources/job-templates/survey-variables.ts';

export const workflowWebhookLauncher: Launcher<WebhookLaunch, WorkflowJobTemplateRow> = {
  kind: WORKFLOW_JOB,
  async plan(tx, _ctx, template, input) {
    if (!template) throw new Error('a webhook launch needs its template');
    // The delivery's variables are no prompts: AWX passes them whatever the template asks.
    const { variables } = await acceptPrompts(tx, WORKFLOW_TEMPLATE_FACET, template, { extra_vars: input.extraVars }, { unasked: 'ignore', takeVariables: true });
    return workflowPlan({ template, launchType: 'webhook', values: {}, ...templateExtraVars(template, variables) });
  },
};
