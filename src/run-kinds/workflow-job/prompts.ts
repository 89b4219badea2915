/**
 * What a workflow job template lets a launch choose (AWX 24's WorkflowJobTemplate ask_*_on_launch:
 * inventory, limit, scm_branch, labels, tags, skip_tags, variables), each read as the workflow's own
 * field reads it. A workflow job's inventory, limit, branch and tags pass down to the templates of its
 * nodes that ask for them; its labels do not (AWX).
 */
import type { WORKFLOW_ASK_FIELDS } from '../../resources/workflow-job-templates/workflow-job-template.resource.ts';
import { workflowJobTemplates } from '../../resources/workflow-job-templates/workflow-job-template.resource.ts';
import type { PromptSpec, TemplateFacet } from '../../runs/prompts.ts';
import { listOfIds, useInventory, useVisible } from '../job/launch-objects.ts';

type WorkflowPrompt = PromptSpec & { flag: (typeof WORKFLOW_ASK_FIELDS)[number] };

const templateField = (field: string, flag: WorkflowPrompt['flag'], column = field): WorkflowPrompt => ({
  field, flag, shape: 'column', column, passesDown: true, parse: (value) => workflowJobTemplates.fields[field].parse(value),
});

export const WORKFLOW_PROMPTS: readonly WorkflowPrompt[] = [
  { ...templateField('inventory', 'inventory', 'inventory_id'), use: useInventory, names: 'inventory' },
  templateField('limit', 'limit'),
  templateField('scm_branch', 'scm_branch'),
  { field: 'labels', flag: 'labels', shape: 'objects', parse: listOfIds('label'), use: useVisible('labels'), names: 'label' },
  templateField('job_tags', 'tags'),
  templateField('skip_tags', 'skip_tags'),
  { field: 'extra_vars', flag: 'variables', shape: 'variables' },
];

export const WORKFLOW_TEMPLATE_FACET: TemplateFacet = { table: 'workflow_job_templates', title: 'Workflow Job Template', prompts: WORKFLOW_PROMPTS };
