/**
 * The API reference of the corpus: the main service's OpenAPI document as one Markdown document per
 * tag (`openapi:jobs`), each operation a short section: method and path, summary and description,
 * parameters, request body fields. OPTIONS (AWX's metadata of every endpoint) and HEAD are left out:
 * the same for every path, they would only crowd the answers.
 */
import type { SourceDocument } from './corpus.ts';

export const OPENAPI_SOURCE_PREFIX = 'openapi:';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** What an operation without a summary does, by method. */
const VERBS: Record<(typeof METHODS)[number], string> = { get: 'Read', post: 'Post to', put: 'Replace', patch: 'Update', delete: 'Delete' };

type Json = Record<string, unknown>;

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  title?: string;
  format?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
}

interface Parameter {
  name?: string;
  in?: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: { description?: string; content?: Record<string, { schema?: Schema }> };
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
/** The same test for values typed from the document, which may not be what their type says. */
const present = <T>(value: T | undefined): value is T => isObject(value);

/** One document per tag of the OpenAPI document, in tag order; operations in path order. */
export function openApiDocuments(document: object): SourceDocument[] {
  const paths = (document as { paths?: unknown }).paths;
  if (!isObject(paths)) return [];
  const byTag = new Map<string, string[]>();
  for (const url of Object.keys(paths).sort()) {
    const item = paths[url];
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const op = operation as Operation;
      const tag = typeof op.tags?.[0] === 'string' ? op.tags[0] : 'other';
      const sections = byTag.get(tag) ?? [];
      sections.push(describeOperation(method, url, op));
      byTag.set(tag, sections);
    }
  }
  return [...byTag.keys()].sort().map((tag) => {
    const title = `API endpoints: ${tag}`;
    return { source: `${OPENAPI_SOURCE_PREFIX}${tag}`, title, text: [`# ${title}`, ...byTag.get(tag)!].join('\n\n') };
  });
}

function describeOperation(method: (typeof METHODS)[number], url: string, op: Operation): string {
  const words = url.split('/').filter((s) => s && s !== 'api' && s !== 'v2' && !s.startsWith('{'));
  const lines = [`## ${method.toUpperCase()} ${url}`, '', sentence(op.summary ?? `${VERBS[method]} ${words.join(' ')}`)];
  if (op.description) lines.push('', op.description.trim());
  const parameters = Array.isArray(op.parameters) ? op.parameters.filter(present) : [];
  const inPath = parameters.filter((p) => p.in === 'path' && p.name).map((p) => p.name);
  if (inPath.length) lines.push('', `Path parameters: ${inPath.join(', ')}.`);
  // Names only: lists share theirs (page, search, order_by...), which docs/api.md explains.
  const query = parameters.filter((p) => p.in === 'query' && p.name).map((p) => p.name);
  if (query.length) lines.push('', `Query parameters: ${query.join(', ')}.`);
  const body = requestBody(op);
  if (body) {
    const properties = Object.entries(body.properties);
    if (op.requestBody?.description) lines.push('', op.requestBody.description.trim());
    if (properties.length) lines.push('', 'Request body fields:', ...properties.map(([name, schema]) => `- ${field(name, schema, body.required.has(name))}`));
  }
  return lines.join('\n');
}

/** The top-level fields of the JSON body, alternatives (anyOf, oneOf) and parts (allOf) merged. */
function requestBody(op: Operation): { properties: Record<string, Schema>; required: Set<string> } | null {
  const content = op.requestBody?.content;
  if (!isObject(content)) return null;
  const schema = (content['application/json'] ?? Object.values(content)[0])?.schema;
  if (!isObject(schema)) return null;
  const properties: Record<string, Schema> = {};
  const required = new Set<string>();
  const visit = (s: Schema, mandatory: boolean) => {
    if (!present(s)) return;
    for (const [name, property] of Object.entries(present(s.properties) ? s.properties : {})) properties[name] ??= property;
    if (mandatory && Array.isArray(s.required)) for (const name of s.required) required.add(name);
    for (const part of list(s.allOf)) visit(part, mandatory);
    for (const alternative of [...list(s.anyOf), ...list(s.oneOf)]) visit(alternative, false);
  };
  visit(schema as Schema, true);
  return { properties, required };
}

/** `name (integer or null, required): what it is; one of a, b; default x` */
function field(name: string, schema: Schema | undefined, required: boolean): string {
  const s: Schema = present(schema) ? schema : {};
  const kind = [typeOf(s), required ? 'required' : ''].filter(Boolean).join(', ');
  const notes: string[] = [];
  const title = typeof s.title === 'string' ? s.title.trim() : '';
  if (title && title.toLowerCase() !== name.replace(/_/g, ' ').toLowerCase()) notes.push(title);
  if (typeof s.description === 'string' && s.description.trim()) notes.push(s.description.trim().replace(/\.$/, ''));
  const choices = [s, ...list(s.anyOf), ...list(s.oneOf)].filter(present).flatMap(choicesOf);
  if (choices.length) notes.push(`one of ${choices.map(show).join(', ')}`);
  if (s.default !== undefined && s.default !== '' && !(isObject(s.default) && !Object.keys(s.default).length)) notes.push(`default ${show(s.default)}`);
  return `${name}${kind ? ` (${kind})` : ''}${notes.length ? `: ${notes.join('; ')}` : ''}`;
}

/** The values an enum or a const allows (none for other schemas). */
const choicesOf = (s: Schema): unknown[] => (Array.isArray(s.enum) ? s.enum : s.const !== undefined ? [s.const] : []);

function typeOf(s: Schema): string {
  const alternatives = [...list(s.anyOf), ...list(s.oneOf)].filter(present);
  // An enum alternative without a type (TypeBox's Enum) is of its values' type: "string or null" for a nullable one.
  const valuesType = (a: Schema) => [...new Set(choicesOf(a).map((v) => (v === null ? 'null' : typeof v)))].join(' or ');
  const types = Array.isArray(s.type) ? s.type : typeof s.type === 'string' ? [s.type]
    : alternatives.map((a) => typeOf(a) || (alternatives.length > 1 ? valuesType(a) : '')).filter(Boolean);
  const named = types.map((t) => (t === 'array' && present(s.items) && typeOf(s.items) ? `array of ${typeOf(s.items)}` : t));
  return [...new Set(named)].join(' or ') + (s.format ? ` (${s.format})` : '');
}

const list = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

const sentence = (text: string) => {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
};
