/** What OPTIONS of launch/ and relaunch/ describe: the fields of AWX's JobLaunchSerializer and JobRelaunchSerializer. */
import { boolean, choice, integer, json, listOfIds, ref, text, type Field } from '../../api/fields.ts';
import { VERBOSITY_CHOICES } from '../../runs/run-fields.ts';

/** What a launch may be given (each only when the template asks for it on launch; survey answers in extra_vars). */
const LAUNCH_PROMPTS: Record<string, Field> = {
  extra_vars: json({ default: {}, helpText: 'Variables for the playbook, with the survey answers.' }),
  inventory: ref('inventory'),
  inventories: listOfIds('inventory'),
  scm_branch: text(),
  limit: text(),
  job_tags: text(),
  skip_tags: text(),
  job_type: choice([['run', 'Run'], ['check', 'Check']]),
  verbosity: integer({ choices: VERBOSITY_CHOICES }),
  diff_mode: boolean(),
  credentials: listOfIds('credential'),
  credential_passwords: json({ helpText: 'Passwords the credentials ask for at launch, by name.' }),
  execution_environment: ref('execution_environment'),
  labels: listOfIds('label'),
  forks: integer({ min: 0 }),
  job_slice_count: integer({ min: 0 }),
  timeout: integer(),
  instance_groups: listOfIds('instance_group'),
};

const LAUNCH_FACTS: Record<string, Field> = {
  can_start_without_user_input: boolean({ readOnly: true }),
  passwords_needed_to_start: json({ readOnly: true }),
  survey_enabled: boolean({ readOnly: true }),
  variables_needed_to_start: json({ readOnly: true }),
  credential_needed_to_start: boolean({ readOnly: true }),
  inventory_needed_to_start: boolean({ readOnly: true }),
  job_template_data: json({ readOnly: true }),
  defaults: json({ readOnly: true }),
};

export const LAUNCH_FIELDS = { GET: { ...LAUNCH_FACTS, ...LAUNCH_PROMPTS }, POST: LAUNCH_PROMPTS };

export const RELAUNCH_FIELDS = {
  GET: { passwords_needed_to_start: json({ readOnly: true }), retry_counts: json({ readOnly: true }) },
  POST: {
    hosts: choice([['all', 'All'], ['failed', 'Failed']], { default: 'all' }),
    credential_passwords: json({ helpText: 'Passwords the credentials ask for at launch, by name.' }),
  },
};
