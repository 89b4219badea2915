/** The prompts a schedule saves in columns of its own (AWX's LaunchTimeConfig fields); credentials, labels and instance groups are related lists. */
import { optionField } from '../../ansible/option-values.ts';
import { boolean, choice, integer, ref, text, type Field } from '../../api/fields.ts';
import { VERBOSITY_CHOICES } from '../../runs/run-fields.ts';

const prompt = { nullable: true, default: null };

export const SCHEDULE_PROMPT_FIELDS: Record<string, Field> = {
  inventory: ref('inventory', { helpText: 'Inventory applied as a prompt, assuming job template prompts for inventory' }),
  execution_environment: ref('execution_environment', { helpText: 'The container image to be used for execution.' }),
  scm_branch: text({ ...prompt }),
  job_type: choice([['run', 'Run'], ['check', 'Check']], { ...prompt }),
  job_tags: optionField('list', { ...prompt }),
  skip_tags: optionField('list', { ...prompt }),
  limit: optionField('pattern', { ...prompt }),
  diff_mode: boolean({ ...prompt }),
  verbosity: integer({ ...prompt, choices: VERBOSITY_CHOICES }),
  forks: integer({ ...prompt, min: 0 }),
  job_slice_count: integer({ ...prompt, min: 0 }),
  timeout: integer({ ...prompt }),
};

/** Each saved prompt's field and the column holding it. */
export const SAVED_PROMPT_COLUMNS: ReadonlyArray<[field: string, column: string]> =
  Object.entries(SCHEDULE_PROMPT_FIELDS).map(([field, declared]) => [field, declared.ref ? `${field}_id` : field]);
