/**
 * A workflow job launched by a service catalog request (docs/service-catalog.md): the requester's
 * run (launch_type manual), with the item's authority. Of the request it takes only answers to the
 * workflow's survey, and the answers to its nodes' templates' surveys, which each node's copy in
 * the workflow job keeps (its extra_data) and hands its run, whose launch checks them again.
 */
import { ValidationError } from '../../api/errors.ts';
import type { WorkflowJobTemplateRow } from '../../db/tables.ts';
import type { Launcher } from '../../runs/launch.ts';
import type { CatalogLaunch } from '../../runs/run-kind.ts';
import { assertItemOffers, catalogTrigger } from '../../runs/catalog-launch.ts';
import { acceptPrompts } from '../../runs/accept-prompts.ts';
import { nodeSurveys } from '../../resources/workflow-job-templates/node-surveys.ts';
import { savedVariables, surveyOnlyMessage, templateExtraVars, variablesOutsideSurvey } from '../../resources/job-templates/survey-variables.ts';
import { workflowPlan } from './launch.ts';
import { WORKFLOW_TEMPLATE_FACET } from './prompts.ts';
import { WORKFLOW_JOB } from './workflow-job-kind-ref.ts';

export const catalogWorkflowLauncher: Launcher<CatalogLaunch, WorkflowJobTemplateRow> = {
  kind: WORKFLOW_JOB,
  async plan(tx, _ctx, template, launch) {
    if (!template) throw new Error('a catalog launch needs its template');
    assertItemOffers(launch, 'workflow_job_template_id', template);
    const outside = variablesOutsideSurvey(template, launch.answers);
    if (outside.length) throw ValidationError.field('extra_vars', surveyOnlyMessage(outside));
    // The nodes' surveys may have changed since the request was made: its answers still answer questions only.
    const surveys = await nodeSurveys(tx, template.id);
    const problems: string[] = [];
    for (const [identifier, answers] of Object.entries(launch.nodeAnswers)) {
      const node = surveys.get(identifier);
      const stray = node ? variablesOutsideSurvey(node.template, answers) : [];
      if (!node) problems.push(`Node ${identifier}: its template has no survey.`);
      else if (stray.length) problems.push(`Node ${identifier}: ${surveyOnlyMessage(stray)}`);
    }
    if (problems.length) throw new ValidationError({ node_survey_data: problems });
    const { variables } = await acceptPrompts(tx, WORKFLOW_TEMPLATE_FACET, template, { extra_vars: savedVariables(template, launch.answers) }, { unasked: 'ignore' });
    const plan = workflowPlan({ template, launchType: 'manual', values: {}, ...templateExtraVars(template, variables) });
    return {
      ...plan,
      trigger: catalogTrigger(launch),
      async link(q, run) {
        await plan.link?.(q, run);
        for (const [identifier, answers] of Object.entries(launch.nodeAnswers)) {
          await q.query('UPDATE workflow_job_nodes SET extra_data = extra_data || $3::jsonb WHERE workflow_job_id = $1 AND identifier = $2', [run.id, identifier, JSON.stringify(answers)]);
        }
      },
    };
  },
};
