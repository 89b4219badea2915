/**
 * How a template's form is laid out, as AWX's job and workflow template forms: the fields of each
 * section in AWX's order, the related lists edited beside them, and the ask_*_on_launch flag that
 * goes with each promptable field.
 */

/** The related lists the form edits after saving the template (its credentials/, labels/, instance_groups/). */
export type RelatedList = 'credentials' | 'labels' | 'instance_groups';

/** The fields of the details section, with the related lists in their places. */
export const DETAIL_ORDER: (string | RelatedList)[] = [
  'name', 'description', 'organization', 'job_type', 'inventory', 'project', 'execution_environment', 'scm_branch', 'playbook',
  'credentials', 'labels', 'extra_vars', 'forks', 'limit', 'verbosity', 'job_slice_count', 'timeout', 'diff_mode',
  'instance_groups', 'job_tags', 'skip_tags', 'start_at_task',
];

/** Fields that have sections of their own. */
export const CALLBACK_FIELDS = new Set(['host_config_key']);
export const WEBHOOK_FIELDS = new Set(['webhook_service', 'webhook_credential']);

/** AWX's labels where OPTIONS' are terse. */
export const FIELD_LABELS: Record<string, string> = {
  credentials: 'Credentials',
  labels: 'Labels',
  instance_groups: 'Instance groups',
  extra_vars: 'Variables',
  job_slice_count: 'Job slicing',
  diff_mode: 'Show changes',
  scm_branch: 'Source control branch',
  become_enabled: 'Privilege escalation',
  allow_simultaneous: 'Concurrent jobs',
  use_fact_cache: 'Enable fact storage',
  job_tags: 'Job tags',
  skip_tags: 'Skip tags',
};

/** Flags whose name is not ask_<field>_on_launch. */
const ASK_NAMES: Record<string, string> = { credentials: 'credential', extra_vars: 'variables', job_tags: 'tags' };

/** The ask_*_on_launch flag of a field or related list, if the template has one. */
export function promptFlag(field: string, writable: Record<string, unknown>): string | undefined {
  const flag = `ask_${ASK_NAMES[field] ?? field}_on_launch`;
  return flag in writable ? flag : undefined;
}

export const isPromptFlag = (name: string) => /^ask_\w+_on_launch$/.test(name);
