/**
 * What a launch asks (GET <template>/launch/), the wizard steps that follows from it, the body a
 * launch sends and where the API's messages belong.
 */
import type { Picked } from '../../../components/MultiReferenceSelect';
import type { ResourceObject } from '../../../api/types';
import { surveyValues, type SurveyQuestion } from '../survey/survey-types';
import type { RunType } from '../../runs/run-types';

/** The templates the console launches, as their own resources serialize them. */
export type LaunchableTemplate = ResourceObject<'job_templates' | 'workflow_job_templates' | 'system_job_templates'>;
/** The templates whose launch may ask questions (prompts and a survey). */
export type PromptingTemplate = ResourceObject<'job_templates' | 'workflow_job_templates'>;

export interface LaunchDescription {
  can_start_without_user_input?: boolean;
  passwords_needed_to_start?: string[];
  survey_enabled?: boolean;
  variables_needed_to_start?: string[];
  defaults?: Record<string, unknown>;
  [ask: string]: unknown;
}

export type StepId = 'inventory' | 'credentials' | 'execution_environment' | 'instance_groups' | 'other' | 'survey' | 'preview';

/** Launch fields of the "other prompts" step and the ask_*_on_launch flag of each. */
export const OTHER_PROMPTS: [field: string, ask: string][] = [
  ['job_type', 'job_type'],
  ['limit', 'limit'],
  ['scm_branch', 'scm_branch'],
  ['verbosity', 'verbosity'],
  ['forks', 'forks'],
  ['timeout', 'timeout'],
  ['job_slice_count', 'job_slice_count'],
  ['job_tags', 'tags'],
  ['skip_tags', 'skip_tags'],
  ['diff_mode', 'diff_mode'],
  ['labels', 'labels'],
  ['extra_vars', 'variables'],
];

export const asks = (d: LaunchDescription, flag: string) => d[`ask_${flag}_on_launch`] === true;

export const STEP_NAMES: Record<StepId, string> = {
  inventory: 'Inventory',
  credentials: 'Credentials',
  execution_environment: 'Execution environment',
  instance_groups: 'Instance groups',
  other: 'Other prompts',
  survey: 'Survey',
  preview: 'Preview',
};

export function launchSteps(d: LaunchDescription): StepId[] {
  const steps: StepId[] = [];
  if (asks(d, 'inventory')) steps.push('inventory');
  if (asks(d, 'credential') || d.passwords_needed_to_start?.length) steps.push('credentials');
  if (asks(d, 'execution_environment')) steps.push('execution_environment');
  if (asks(d, 'instance_groups')) steps.push('instance_groups');
  if (OTHER_PROMPTS.some(([, flag]) => asks(d, flag))) steps.push('other');
  if (d.survey_enabled) steps.push('survey');
  steps.push('preview');
  return steps;
}

export const needsInput = (d: LaunchDescription) => !d.can_start_without_user_input || !!d.survey_enabled || !!d.passwords_needed_to_start?.length;

/** The step an API field message belongs on. */
export function stepOfField(field: string): StepId {
  if (field === 'inventory' || field === 'inventory_needed_to_start') return 'inventory';
  if (field === 'credentials' || field === 'credential' || field === 'passwords_needed_to_start' || field === 'credential_passwords' || field === 'credential_needed_to_start') return 'credentials';
  if (field === 'execution_environment') return 'execution_environment';
  if (field === 'instance_groups') return 'instance_groups';
  if (field === 'variables_needed_to_start') return 'survey';
  if (OTHER_PROMPTS.some(([f]) => f === field)) return 'other';
  return 'preview';
}

/** The wizard's values: launch fields by name, plus passwords and survey answers. */
export interface LaunchValues {
  inventory: number | null;
  credentials: Picked[];
  execution_environment: number | null;
  instance_groups: Picked[];
  labels: Picked[];
  passwords: Record<string, string>;
  survey: Record<string, unknown>;
  /** The rest of OTHER_PROMPTS (extra_vars as text). */
  [field: string]: unknown;
}

const idOf = (v: unknown) => (v && typeof v === 'object' && 'id' in v ? (v as { id: number }).id : null);

export function initialValues(d: LaunchDescription, initialSurvey: Record<string, unknown>): LaunchValues {
  const defaults = d.defaults ?? {};
  const values: LaunchValues = {
    inventory: idOf(defaults.inventory),
    credentials: ((defaults.credentials as Picked[] | undefined) ?? []).map((c) => ({ ...c })),
    execution_environment: idOf(defaults.execution_environment),
    instance_groups: (defaults.instance_groups as Picked[] | undefined) ?? [],
    labels: (defaults.labels as Picked[] | undefined) ?? [],
    passwords: {},
    survey: initialSurvey,
  };
  for (const [field] of OTHER_PROMPTS) if (!(field in values)) values[field] = defaults[field] ?? (field === 'extra_vars' ? '' : undefined);
  return values;
}

/** The password names a credential asks at launch (its inputs set to ASK), as the API names them. */
export function passwordsOf(credential: Picked): string[] {
  if (Array.isArray(credential.passwords_needed)) return credential.passwords_needed as string[];
  const inputs = (credential.inputs ?? {}) as Record<string, unknown>;
  if (inputs.vault_password === 'ASK') return [inputs.vault_id ? `vault_password.${String(inputs.vault_id)}` : 'vault_password'];
  const machine: Record<string, string> = { password: 'ssh_password', become_password: 'become_password', ssh_key_unlock: 'ssh_key_unlock' };
  return Object.entries(machine).filter(([input]) => inputs[input] === 'ASK').map(([, name]) => name);
}

export function passwordsNeeded(d: LaunchDescription, values: LaunchValues): string[] {
  if (!asks(d, 'credential')) return d.passwords_needed_to_start ?? [];
  return [...new Set(values.credentials.flatMap(passwordsOf))];
}

/** Extra vars text (YAML or JSON) as an object; undefined when it does not parse as a mapping. */
export type ParseVariables = (text: string) => Record<string, unknown> | undefined;

export function launchBody(d: LaunchDescription, values: LaunchValues, spec: SurveyQuestion[], parse: ParseVariables): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (asks(d, 'inventory')) body.inventory = values.inventory;
  if (asks(d, 'credential')) body.credentials = values.credentials.map((c) => c.id);
  const needed = passwordsNeeded(d, values);
  if (needed.length) body.credential_passwords = Object.fromEntries(needed.map((n) => [n, values.passwords[n] ?? '']));
  if (asks(d, 'execution_environment')) body.execution_environment = values.execution_environment;
  if (asks(d, 'instance_groups')) body.instance_groups = values.instance_groups.map((g) => g.id);
  for (const [field, flag] of OTHER_PROMPTS) {
    if (!asks(d, flag) || field === 'extra_vars') continue;
    body[field] = field === 'labels' ? values.labels.map((l) => l.id) : values[field];
  }
  const extra: Record<string, unknown> = asks(d, 'variables') ? parse(String(values.extra_vars ?? '')) ?? {} : {};
  if (d.survey_enabled) Object.assign(extra, surveyValues(spec, values.survey));
  if (asks(d, 'variables') || d.survey_enabled) body.extra_vars = extra;
  return body;
}

/** The run a launch answered ({job}, {workflow_job} or {system_job}) as {id, type}. */
export function launchedRun(answer: Record<string, unknown>): { id: number; type: string } | null {
  for (const type of ['job', 'workflow_job', 'system_job'] satisfies RunType[]) if (typeof answer[type] === 'number') return { id: answer[type] as number, type };
  return typeof answer.id === 'number' && typeof answer.type === 'string' ? { id: answer.id, type: answer.type } : null;
}
