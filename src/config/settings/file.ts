import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { FieldProblem } from '../../api/fields.ts';
import { ConfigError } from '../env.ts';
import { parseSetting, type SettingRegistry } from './registry.ts';

/**
 * Reads SVC_SETTINGS_FILE: a JSON or YAML mapping of setting names (or their aliases) to values,
 * answered by the names the values are stored under. Every name must be a known, writable setting
 * and every value valid for it; otherwise the service does not start, and
 * the message names the file and each offending key.
 */
export async function readSettingsFile(file: string, registry: SettingRegistry): Promise<Map<string, unknown>> {
  const fail = (problem: string) => new ConfigError(`settings file ${file}: ${problem}`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw fail(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let data: unknown;
  try {
    data = /\.json$/i.test(file) ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw fail(`is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (data === null || data === undefined) return new Map();
  if (typeof data !== 'object' || Array.isArray(data)) throw fail('must be a mapping of setting names to values');

  const values = new Map<string, unknown>();
  const givenAs = new Map<string, string>();
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(data as Record<string, unknown>)) {
    const definition = registry.find(name);
    if (!definition) {
      problems.push(`${name}: unknown setting`);
      continue;
    }
    if (definition.field.readOnly) {
      problems.push(`${name}: read-only setting`);
      continue;
    }
    let value: unknown;
    try {
      value = parseSetting(definition.field, raw);
    } catch (err) {
      if (!(err instanceof FieldProblem)) throw err;
      problems.push(`${name}: ${err.message}`);
      continue;
    }
    // Stored under the setting's own name; an alias given too must agree with it.
    const { canonical } = definition;
    if (values.has(canonical) && JSON.stringify(values.get(canonical)) !== JSON.stringify(value)) {
      problems.push(`${name}: same setting as ${givenAs.get(canonical)}, with another value`);
      continue;
    }
    givenAs.set(canonical, name);
    values.set(canonical, value);
  }
  if (problems.length) throw fail(problems.join('; '));
  return values;
}
