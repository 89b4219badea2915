import { parse as parseYaml, type ScalarTag, type Tags } from 'yaml';
import { FieldProblem, text, type Field, type FieldOptions } from '../api/fields.ts';

export type Variables = Record<string, unknown>;

const INVALID = 'Must be valid JSON or YAML.';

const isMapping = (value: unknown): value is Variables => typeof value === 'object' && value !== null && !Array.isArray(value);

const BOOL = 'tag:yaml.org,2002:bool';
const boolTag = (value: boolean, test: RegExp): ScalarTag => ({ identify: (v) => v === value, default: true, tag: BOOL, test, resolve: () => value });

/** YAML 1.1 booleans as PyYAML reads them: yes/no, true/false, on/off, but not y/n. */
const pyYamlBooleans = (tags: Tags): Tags => [
  ...tags.filter((tag) => typeof tag === 'string' || tag.tag !== BOOL),
  boolTag(true, /^(?:[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/),
  boolTag(false, /^(?:[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/),
];

/**
 * Reads variables text as Ansible does (PyYAML is YAML 1.1: `yes` is true, `<<` merges, a repeated
 * key keeps the last value). Answers what the text holds, or throws when it is neither JSON nor YAML.
 */
function readDocument(source: string): unknown {
  const trimmed = source.trim();
  if (trimmed === '' || trimmed === '""') return null;
  if (trimmed.startsWith('{')) {
    try {
      return JSON.parse(trimmed);
    } catch {
      // YAML flow mappings also start with "{": fall through.
    }
  }
  return parseYaml(source, { version: '1.1', customTags: pyYamlBooleans, uniqueKeys: false, merge: true, maxAliasCount: 100 });
}

/** The variables a text holds as a mapping: {} when the text is empty or is not a mapping (as AWX's variables_dict). */
export function parseVariables(source: string | null | undefined): Variables {
  if (!source) return {};
  try {
    const value = readDocument(source);
    // Dates and other YAML types become what JSON would make of them.
    return isMapping(value) ? (JSON.parse(JSON.stringify(value)) as Variables) : {};
  } catch {
    return {};
  }
}

/** Whether the text is acceptable as variables: empty, or JSON or YAML holding a mapping (or nothing, as `---`). */
export function variablesProblem(source: string): string | null {
  try {
    const value = readDocument(source);
    return value === null || value === undefined || isMapping(value) ? null : INVALID;
  } catch {
    return INVALID;
  }
}

/**
 * A `variables` field: text holding JSON or YAML that must read as a mapping; stored as given. A JSON
 * object is accepted too, and stored as its JSON text.
 */
export function variablesField(opts: FieldOptions = {}): Field {
  const base = text({ helpText: 'Variables in JSON or YAML format.', ...opts });
  return {
    ...base,
    parse(value) {
      if (isMapping(value)) return JSON.stringify(value);
      const source = base.parse(value) as string;
      const problem = variablesProblem(source);
      if (problem) throw new FieldProblem(problem);
      return source;
    },
  };
}
