import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { FieldProblem } from '../../api/fields.ts';
import { ConfigError } from '../env.ts';
import { findSetting, parseSetting } from './registry.ts';

/**
 * Reads SVC_SETTINGS_FILE: a JSON or YAML mapping of setting names to values. Every name must
 * be a known setting and every value valid for it; otherwise the service does not start, and
 * the message names the file and each offending key.
 */
export async function readSettingsFile(file: string): Promise<Map<string, unknown>> {
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
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(data as Record<string, unknown>)) {
    const definition = findSetting(name);
    if (!definition) {
      problems.push(`${name}: unknown setting`);
      continue;
    }
    try {
      values.set(name, parseSetting(definition.field, raw));
    } catch (err) {
      if (!(err instanceof FieldProblem)) throw err;
      problems.push(`${name}: ${err.message}`);
    }
  }
  if (problems.length) throw fail(problems.join('; '));
  return values;
}
