/**
 * Extra vars as YAML in which every string is tagged !unsafe, so Ansible never templates them: an
 * ad hoc command's extra vars are data, as AWX treats them. JSON's string escapes are valid in
 * YAML's double-quoted scalars, so each value is written as flow YAML.
 */
export function unsafeVariablesYaml(vars: Record<string, unknown>): string {
  return `${unsafeValue(vars)}\n`;
}

function unsafeValue(value: unknown): string {
  if (typeof value === 'string') return `!unsafe ${JSON.stringify(value)}`;
  if (Array.isArray(value)) return `[${value.map(unsafeValue).join(', ')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${unsafeValue(v)}`).join(', ')}}`;
  }
  return JSON.stringify(value ?? null);
}
