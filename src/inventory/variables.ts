import { Lexer, parse as parseYaml, type ScalarTag, type Tags } from 'yaml';
import { jsonTextTooDeep, MAX_JSON_DEPTH, nestsDeeperThan, TOO_DEEP, TooDeepError } from '../db/json-depth.ts';
import { FieldProblem, text, type Field, type FieldOptions } from '../api/fields.ts';
import { pythonJson } from '../api/python-json.ts';

export type Variables = Record<string, unknown>;

const INVALID = 'Must be valid JSON or YAML.';

export const isMapping = (value: unknown): value is Variables => typeof value === 'object' && value !== null && !Array.isArray(value);

const BOOL = 'tag:yaml.org,2002:bool';
const boolTag = (value: boolean, test: RegExp): ScalarTag => ({ identify: (v) => v === value, default: true, tag: BOOL, test, resolve: () => value });

/** YAML 1.1 booleans as PyYAML reads them: yes/no, true/false, on/off, but not y/n. */
const pyYamlBooleans = (tags: Tags): Tags => [
  ...tags.filter((tag) => typeof tag === 'string' || tag.tag !== BOOL),
  boolTag(true, /^(?:[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/),
  boolTag(false, /^(?:[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/),
];

/**
 * Whether YAML text may nest deeper than `max`, judged from its tokens before it is parsed (the YAML
 * library composes a document recursively). A line's depth is the number of indentation levels open
 * at it, plus compact `- - ` entries, plus the flow collections (`[`, `{`) open there: it may count a
 * level too many, never one too few.
 */
export function yamlTooDeep(source: string, max = MAX_JSON_DEPTH): boolean {
  const indents: number[] = [];
  let flow = 0;
  let lineStart = true;
  let indent = 0;
  let compact = 0;
  let leading = false;
  for (const token of new Lexer().lex(source)) {
    if (token === '[' || token === '{') flow++;
    else if (token === ']' || token === '}') flow--;
    if (token === '\n' || token === '\r\n' || (token.length > 1 && token.endsWith('\n'))) {
      // A newline, or a block scalar's text (its lines are content, not structure).
      lineStart = true;
      indent = 0;
      continue;
    }
    if (token.length === 1 && token < ' ') continue; // the lexer's markers (document, scalar)
    if (lineStart && /^[ \t]+$/.test(token)) {
      indent = token.length;
      continue;
    }
    if (lineStart) {
      lineStart = false;
      if (token.startsWith('#')) {
        lineStart = true;
        continue;
      }
      if (flow === 0 || (flow === 1 && (token === '[' || token === '{'))) {
        while (indents.length && indents[indents.length - 1] > indent) indents.pop();
        if (indents[indents.length - 1] !== indent) indents.push(indent);
      }
      compact = 0;
      leading = true;
    }
    if (leading && (token === '-' || token === '?')) compact++;
    else if (leading && !/^[ \t]+$/.test(token)) leading = false;
    if (indents.length + compact + flow > max) return true;
  }
  return false;
}

/**
 * Reads variables text as Ansible does (PyYAML is YAML 1.1: `yes` is true, `<<` merges, a repeated
 * key keeps the last value). Answers what the text holds, or throws when it is neither JSON nor YAML.
 */
function readDocument(source: string): unknown {
  const trimmed = source.trim();
  if (trimmed === '' || trimmed === '""') return null;
  if (trimmed.startsWith('{')) {
    if (jsonTextTooDeep(trimmed)) throw new TooDeepError();
    try {
      return JSON.parse(trimmed);
    } catch {
      // YAML flow mappings also start with "{": fall through.
    }
  }
  if (yamlTooDeep(source)) throw new TooDeepError();
  const value: unknown = parseYaml(source, { version: '1.1', customTags: pyYamlBooleans, uniqueKeys: false, merge: true, maxAliasCount: 100 });
  // Aliases can nest what the text does not.
  if (nestsDeeperThan(value)) throw new TooDeepError();
  return value;
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
  } catch (err) {
    return err instanceof TooDeepError ? TOO_DEEP : INVALID;
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
    valueSchema: { type: ['string', 'object'] },
    parse(value) {
      if (isMapping(value)) return pythonJson(value);
      const source = base.parse(value) as string;
      const problem = variablesProblem(source);
      if (problem) throw new FieldProblem(problem);
      return source;
    },
  };
}
