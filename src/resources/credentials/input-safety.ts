/**
 * Credential inputs that reach a run are data. Those Ansible reads on its command line (a Machine
 * credential's users and become method, a Vault id) may hold no Jinja, which Ansible would
 * template (AWX's sanitize_jinja), and may not start with "-". Inputs of a type with injectors
 * (env, files, extra vars) may hold no Jinja either: a playbook may read them back as variables.
 */
import type { FieldErrors } from '../../api/errors.ts';
import { ENCRYPTED } from '../../api/fields.ts';
import { hasJinjaOpening, INLINE_JINJA } from '../../ansible/jinja-markers.ts';
import { commandLineValueProblem } from '../../ansible/option-values.ts';
import { fieldsOf } from '../credential-types/type-schema.ts';
import type { CredentialTypeRow, Inputs } from './credential-inputs.ts';
import { BUILTIN_INJECTORS } from './managed-injectors.ts';

/** Inputs given to ansible-playbook as option values, by managed type namespace. */
const COMMAND_LINE_INPUTS: Record<string, readonly string[]> = {
  ssh: ['username', 'become_method', 'become_username'],
  vault: ['vault_id'],
};

const injects = (type: CredentialTypeRow) =>
  Object.values(type.injectors ?? {}).some((section) => Object.keys(section ?? {}).length > 0) ||
  (type.managed && type.namespace !== null && type.namespace in BUILTIN_INJECTORS);

/** Adds an error for each input (not already in `errors`) that could smuggle a template or an option into a run. */
export function checkInputSafety(type: CredentialTypeRow, inputs: Inputs, errors: FieldErrors): void {
  const commandLine = new Set(type.managed && type.namespace ? COMMAND_LINE_INPUTS[type.namespace] ?? [] : []);
  const injected = injects(type);
  for (const field of fieldsOf(type.inputs)) {
    const value = inputs[field.id];
    if (typeof value !== 'string' || value === ENCRYPTED || errors[field.id]) continue;
    const problem = commandLine.has(field.id) ? commandLineValueProblem(value) : injected && hasJinjaOpening(value) ? INLINE_JINJA : null;
    if (problem) errors[field.id] = [problem];
  }
}
