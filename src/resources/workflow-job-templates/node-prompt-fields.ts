/** The launch-time values a node (of a template or of a workflow job) may carry, as AWX's LaunchTimeConfig. */
import { optionField } from '../../ansible/option-values.ts';
import { boolean, choice, integer, json, ref, text } from '../../api/fields.ts';
import { VERBOSITY_CHOICES } from '../../runs/run-fields.ts';

const nullable = { nullable: true, default: undefined } as const;

export function nodePromptFields() {
  return {
    extra_data: json({ helpText: 'Extra variables the node launches its template with.' }),
    inventory: ref('inventory', { helpText: 'Inventory applied as a prompt, assuming job template prompts for inventory' }),
    scm_branch: text({ ...nullable, maxLength: 1024 }),
    job_type: choice([['run', 'Run'], ['check', 'Check']], nullable),
    job_tags: optionField('list', nullable),
    skip_tags: optionField('list', nullable),
    limit: optionField('pattern', nullable),
    diff_mode: boolean(nullable),
    verbosity: integer({ ...nullable, choices: VERBOSITY_CHOICES }),
    forks: integer({ ...nullable, min: 0 }),
    job_slice_count: integer({ ...nullable, min: 1 }),
    timeout: integer(nullable),
    execution_environment: ref('execution_environment'),
  };
}

/** Each prompt a node saves in a column of its own (all but extra_data) and that column. */
export const NODE_PROMPT_COLUMNS: ReadonlyArray<[field: string, column: string]> = Object.entries(nodePromptFields())
  .filter(([field]) => field !== 'extra_data')
  .map(([field, declared]) => [field, declared.ref ? `${field}_id` : field]);

/** The columns a copy of a node takes with it: every saved prompt and extra_data. */
export const NODE_PROMPT_STORAGE = ['extra_data', ...NODE_PROMPT_COLUMNS.map(([, column]) => column)];
