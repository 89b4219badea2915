/**
 * The extra vars file of a run (ansible-runner's env/extravars), written as flow YAML in which
 * strings Ansible must not template are tagged !unsafe, as AWX's build_extra_vars_file and
 * safe_dump do. Which of a job's variables may stay templates follows ALLOW_JINJA_IN_EXTRA_VARS:
 * `always` all of them, `template` those a job template's current extra_vars give with the same
 * value (only its admins write them), `never` none. Credential injector variables never, nor
 * the variables of a webhook delivery or event (awx_webhook_*, tower_webhook_*, svc_eda_*: the sender's data).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Queryable, Row } from '../db/database.ts';
import type { JinjaInExtraVars } from '../config/settings/categories/jobs.ts';
import { descend } from '../db/json-depth.ts';
import { parseVariables } from '../inventory/variables.ts';

/** The job's variables that may stay templates: all, or top-level name/value pairs (a template's own). */
export type TrustedVars = 'all' | Record<string, unknown>;

// JSON leaves these raw, but YAML readers refuse them (C1 controls...) or fold them (line separators).
const NOT_YAML_PRINTABLE = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;

/** JSON text that YAML reads back as the same value (JSON's escapes are YAML's, in double quotes). */
function yamlJson(value: unknown): string {
  return JSON.stringify(value ?? null).replace(NOT_YAML_PRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A value as flow YAML with every string tagged !unsafe. */
function unsafeValue(value: unknown, depth = 0): string {
  if (typeof value === 'string') return `!unsafe ${yamlJson(value)}`;
  if (Array.isArray(value)) return `[${value.map((v) => unsafeValue(v, descend(depth))).join(', ')}]`;
  if (value && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${yamlJson(k)}: ${unsafeValue(v, descend(depth))}`).join(', ')}}`;
  return yamlJson(value);
}

/** Variables a webhook delivery or an event rule's event sets (src/runs/webhooks/delivery-launch.ts, src/eda/actions.ts): always unsafe. */
const WEBHOOK_VARIABLE = /^((awx|tower)_webhook_|svc_eda_)/;

/** The run's extra vars: credential variables (always unsafe) under the job's, whose trusted ones stay plain. */
export function extraVarsYaml(jobVars: Record<string, unknown>, credentialVars: Record<string, unknown>, trusted: TrustedVars): string {
  const entries: string[] = [];
  for (const [name, value] of Object.entries(credentialVars)) if (!Object.hasOwn(jobVars, name)) entries.push(`${yamlJson(name)}: ${unsafeValue(value)}`);
  for (const [name, value] of Object.entries(jobVars)) {
    const plain = !WEBHOOK_VARIABLE.test(name) && (trusted === 'all' || (Object.hasOwn(trusted, name) && isDeepStrictEqual(trusted[name], value)));
    entries.push(`${yamlJson(name)}: ${plain ? yamlJson(value) : unsafeValue(value)}`);
  }
  return `{${entries.join(', ')}}\n`;
}

/** Which of a job's variables may stay templates, read at run time from the setting and the template's current extra_vars. */
export async function trustedJobVars(db: Queryable, mode: JinjaInExtraVars | undefined, job: Row): Promise<TrustedVars> {
  if (mode === 'always') return 'all';
  if (mode === 'never' || !job.job_template_id) return {};
  const [template] = await db.query<{ extra_vars: string | null }>('SELECT extra_vars FROM job_templates WHERE id = $1', [job.job_template_id]);
  return template ? parseVariables(template.extra_vars) : {};
}
