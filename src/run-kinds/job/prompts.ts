/**
 * What a job template lets a launch choose (AWX 24's JobTemplate ask_*_on_launch fields): each value
 * is read as the template's own field reads it, and its checks beyond the field (a branch the
 * project allows to override, MAX_FORKS) apply to it as to the template.
 */
import { FieldProblem } from '../../api/fields.ts';
import type { ASK_FIELDS } from '../../resources/job-templates/job-template.resource.ts';
import { jobTemplates } from '../../resources/job-templates/job-template.resource.ts';
import { templateValueProblems, maxForks } from '../../resources/job-templates/job-template-hooks.ts';
import type { PromptSpec, TemplateFacet } from '../../runs/prompts.ts';
import { listOfIds, useCredentials, useExecutionEnvironment, useInventory, useVisible } from './launch-objects.ts';

type JobPrompt = PromptSpec & { flag: (typeof ASK_FIELDS)[number] };

/** A column prompt read by the job template's field of the same name, then by its checks beyond it. */
function templateField(field: string, flag: JobPrompt['flag'], column = field): JobPrompt {
  return {
    field, flag, shape: 'column', column,
    parse(value, ctx) {
      const parsed = jobTemplates.fields[field].parse(value);
      const problem = templateValueProblems({ [field]: parsed }, maxForks(ctx))[field];
      if (problem) throw new FieldProblem(problem[0]);
      return parsed;
    },
  };
}

export const JOB_TEMPLATE_PROMPTS: readonly JobPrompt[] = [
  { ...templateField('inventory', 'inventory', 'inventory_id'), use: useInventory, names: 'inventory' },
  { field: 'credentials', flag: 'credential', shape: 'objects', parse: listOfIds('credential'), use: useCredentials, names: 'credential' },
  templateField('limit', 'limit'),
  templateField('job_tags', 'tags'),
  templateField('skip_tags', 'skip_tags'),
  templateField('job_type', 'job_type'),
  templateField('verbosity', 'verbosity'),
  templateField('diff_mode', 'diff_mode'),
  templateField('scm_branch', 'scm_branch'),
  templateField('forks', 'forks'),
  templateField('timeout', 'timeout'),
  templateField('job_slice_count', 'job_slice_count'),
  { ...templateField('execution_environment', 'execution_environment', 'execution_environment_id'), use: useExecutionEnvironment, names: 'execution_environment' },
  { field: 'labels', flag: 'labels', shape: 'objects', parse: listOfIds('label'), use: useVisible('labels'), names: 'label' },
  { field: 'instance_groups', flag: 'instance_groups', shape: 'objects', parse: listOfIds('instance group'), use: useVisible('instance_groups'), names: 'instance_group' },
  { field: 'extra_vars', flag: 'variables', shape: 'variables' },
];

export const JOB_TEMPLATE_FACET: TemplateFacet = { table: 'job_templates', title: 'Job Template', prompts: JOB_TEMPLATE_PROMPTS };
