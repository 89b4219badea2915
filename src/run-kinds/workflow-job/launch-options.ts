/** What OPTIONS of a workflow's launch/ describes: the fields of AWX's WorkflowJobLaunchSerializer (awxkit builds `awx workflow_job_templates launch` from POST). */
import { boolean, json, listOfIds, ref, text, type Field } from '../../api/fields.ts';

const WORKFLOW_LAUNCH_PROMPTS: Record<string, Field> = {
  extra_vars: json({ default: {}, helpText: 'Variables for the workflow, with the survey answers.' }),
  inventory: ref('inventory'),
  limit: text(),
  scm_branch: text(),
  labels: listOfIds('label'),
  job_tags: text(),
  skip_tags: text(),
};

const WORKFLOW_LAUNCH_FACTS: Record<string, Field> = {
  can_start_without_user_input: boolean({ readOnly: true }),
  survey_enabled: boolean({ readOnly: true }),
  variables_needed_to_start: json({ readOnly: true }),
  node_templates_missing: json({ readOnly: true }),
  node_prompts_rejected: json({ readOnly: true }),
  workflow_job_template_data: json({ readOnly: true }),
  defaults: json({ readOnly: true }),
};

export const WORKFLOW_LAUNCH_FIELDS = { GET: { ...WORKFLOW_LAUNCH_FACTS, ...WORKFLOW_LAUNCH_PROMPTS }, POST: WORKFLOW_LAUNCH_PROMPTS };
