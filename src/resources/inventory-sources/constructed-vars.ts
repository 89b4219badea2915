/**
 * What the source_vars of a constructed source may hold: the options of Ansible's `constructed`
 * inventory plugin (ansible.builtin.constructed), which the update writes as the plugin's
 * configuration. Anything else is refused when saved, so a typo does not surface only at update.
 */
const OPTIONS = new Set(['plugin', 'compose', 'groups', 'keyed_groups', 'strict', 'use_vars_plugins', 'use_extra_vars', 'leading_separator']);
const KEYED_GROUP_OPTIONS = new Set(['key', 'prefix', 'separator', 'parent_group', 'default_value', 'trailing_separator']);
const PLUGIN_NAMES = new Set(['constructed', 'ansible.builtin.constructed']);

const isMapping = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function expressionsProblem(name: string, value: unknown): string | null {
  if (!isMapping(value)) return `"${name}" must be a mapping of names to Jinja2 expressions.`;
  for (const [key, expression] of Object.entries(value)) {
    if (typeof expression !== 'string' && typeof expression !== 'boolean' && typeof expression !== 'number') {
      return `"${name}.${key}" must be a Jinja2 expression.`;
    }
  }
  return null;
}

function keyedGroupsProblem(value: unknown): string | null {
  if (!Array.isArray(value)) return '"keyed_groups" must be a list of mappings, each with a "key".';
  for (const [index, entry] of value.entries()) {
    if (!isMapping(entry) || typeof entry.key !== 'string' || entry.key === '') return `"keyed_groups[${index}]" needs a "key" expression.`;
    const unknown = Object.keys(entry).find((k) => !KEYED_GROUP_OPTIONS.has(k));
    if (unknown) return `"keyed_groups[${index}]" has an unknown option "${unknown}".`;
  }
  return null;
}

/** Why these variables cannot configure the constructed plugin, or null. */
export function constructedVarsProblem(vars: Record<string, unknown>): string | null {
  const unknown = Object.keys(vars).find((k) => !OPTIONS.has(k));
  if (unknown) return `"${unknown}" is not an option of the constructed inventory plugin (${[...OPTIONS].join(', ')}).`;
  if ('plugin' in vars && !PLUGIN_NAMES.has(String(vars.plugin))) return 'A constructed source always uses the constructed plugin.';
  for (const name of ['compose', 'groups'] as const) {
    if (name in vars) {
      const problem = expressionsProblem(name, vars[name]);
      if (problem) return problem;
    }
  }
  if ('keyed_groups' in vars) {
    const problem = keyedGroupsProblem(vars.keyed_groups);
    if (problem) return problem;
  }
  for (const name of ['strict', 'use_vars_plugins', 'use_extra_vars', 'leading_separator'] as const) {
    if (name in vars && typeof vars[name] !== 'boolean') return `"${name}" must be true or false.`;
  }
  return null;
}
