/**
 * The `dynamic_choices` object of a multiple-choice survey question: where its choices come from at
 * launch time (a query over the service's objects, an HTTP endpoint, a Jinja2 template) and how long
 * they are cached. A survey is refused, whole, when one of its questions has a source that is not
 * exactly one of these.
 */
import { checkSyntax } from '../../../templating/sandbox.ts';

export const SOURCE_TYPES = ['db_query', 'api_endpoint', 'jinja2'] as const;
export type SourceType = (typeof SOURCE_TYPES)[number];

export const DEFAULT_CACHE_TTL = 60;
export const MAX_CACHE_TTL = 86_400;
export const DEFAULT_TIMEOUT = 10;
export const MAX_TIMEOUT = 60;
export const DB_QUERY_FIELDS = ['name', 'id', 'description'] as const;

/** How a filter key may compare a field: text, an id, a reference to another object, a flag. */
type FilterKind = 'text' | 'id' | 'ref' | 'boolean';

const LOOKUPS: Record<FilterKind, readonly string[]> = {
  text: ['exact', 'iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'in', 'isnull'],
  id: ['exact', 'in', 'gt', 'gte', 'lt', 'lte'],
  ref: ['exact', 'in', 'isnull'],
  boolean: ['exact'],
};

const COMMON: Record<string, FilterKind> = { id: 'id', name: 'text', description: 'text' };

/**
 * The models a db_query may list, the resource each lists, and the fields its filter may use: plain,
 * non-secret fields and references compared by id, nothing that leads to secrets (credential
 * inputs) or through other objects.
 */
export const DB_QUERY_MODELS: Record<string, { resource: string; filters: Record<string, FilterKind> }> = {
  hosts: { resource: 'host', filters: { ...COMMON, inventory: 'ref', enabled: 'boolean' } },
  groups: { resource: 'group', filters: { ...COMMON, inventory: 'ref' } },
  projects: { resource: 'project', filters: { ...COMMON, organization: 'ref', scm_type: 'text' } },
  inventories: { resource: 'inventory', filters: { ...COMMON, organization: 'ref', kind: 'text' } },
  credentials: { resource: 'credential', filters: { ...COMMON, organization: 'ref', credential_type: 'ref' } },
  organizations: { resource: 'organization', filters: COMMON },
  execution_environments: { resource: 'execution_environment', filters: { ...COMMON, organization: 'ref' } },
  // Job and workflow job templates together (the unified list's name, description, organization).
  templates: { resource: 'unified_job_template', filters: { ...COMMON, organization: 'ref' } },
};

const KEYS: Record<SourceType, readonly string[]> = {
  db_query: ['model', 'field', 'filter'],
  api_endpoint: ['url', 'method', 'headers', 'json_path', 'value_field', 'timeout', 'body'],
  jinja2: ['template'],
};
const COMMON_KEYS = ['enabled', 'source_type', 'cache_ttl'];

const MAX_FILTERS = 20;
const MAX_FILTER_VALUE = 1024;
const MAX_URL = 2048;
const MAX_HEADERS = 50;
const MAX_HEADER_VALUE = 8192;
const MAX_BODY = 65_536;
const MAX_PATH = 256;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Set by the request itself: a source that changes them would break the exchange.
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'upgrade', 'te', 'trailer', 'keep-alive']);
const PATH_SEGMENT = /^[A-Za-z0-9_-]+$/;

export type DynamicChoices = Record<string, unknown> & { enabled: boolean; source_type: SourceType };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isWholeNumber = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** The question's dynamic source when it is turned on, else null. */
export function dynamicSource(question: Record<string, unknown>): DynamicChoices | null {
  const d = question.dynamic_choices;
  return isObject(d) && d.enabled === true ? (d as DynamicChoices) : null;
}

/** A dot path (`data.items`), split; empty for none. */
export const pathSegments = (path: unknown): string[] => (typeof path === 'string' && path !== '' ? path.split('.') : []);

function filterProblem(model: string, filter: unknown): string | null {
  if (!isObject(filter)) return 'filter must be an object of field lookups';
  const entries = Object.entries(filter);
  if (entries.length > MAX_FILTERS) return `filter may have at most ${MAX_FILTERS} lookups`;
  const fields = DB_QUERY_MODELS[model].filters;
  for (const [key, value] of entries) {
    const parts = key.split('__');
    const field = parts[0];
    const kind = Object.hasOwn(fields, field) ? fields[field] : undefined;
    if (!kind) return `filter key '${key}' is not allowed: ${model} may be filtered on ${Object.keys(fields).join(', ')}`;
    let rest = parts.slice(1);
    // A reference compares its id: inventory, inventory__id, inventory__id__in.
    if (kind === 'ref' && rest[0] === 'id') rest = rest.slice(1);
    const lookup = rest.length === 0 ? 'exact' : rest.length === 1 ? rest[0] : null;
    if (lookup === null || !LOOKUPS[kind].includes(lookup)) {
      return `filter key '${key}' is not allowed: ${field} takes the lookups ${LOOKUPS[kind].join(', ')}`;
    }
    const problem = filterValueProblem(kind, lookup, value);
    if (problem) return `filter '${key}' ${problem}`;
  }
  return null;
}

function filterValueProblem(kind: FilterKind, lookup: string, value: unknown): string | null {
  if (!['string', 'number', 'boolean'].includes(typeof value)) return 'must be a string, a number or a boolean';
  const text = String(value);
  if (text.length > MAX_FILTER_VALUE) return `is longer than ${MAX_FILTER_VALUE} characters`;
  if (lookup === 'isnull' || kind === 'boolean') return /^(true|false)$/i.test(text) ? null : 'must be true or false';
  if (kind === 'id' || kind === 'ref') {
    const ids = lookup === 'in' ? text.split(',') : [text];
    if (!ids.every((id) => /^\d{1,9}$/.test(id.trim()))) return lookup === 'in' ? 'must be comma-separated ids' : 'must be an id';
  }
  return null;
}

function dbQueryProblem(d: Record<string, unknown>): string | null {
  const model = d.model;
  if (typeof model !== 'string' || !Object.hasOwn(DB_QUERY_MODELS, model)) return `model must be one of ${Object.keys(DB_QUERY_MODELS).join(', ')}`;
  if (d.field !== undefined && !(DB_QUERY_FIELDS as readonly unknown[]).includes(d.field)) return `field must be one of ${DB_QUERY_FIELDS.join(', ')}`;
  if (d.filter !== undefined && d.filter !== null) return filterProblem(model, d.filter);
  return null;
}

function urlProblem(url: unknown): string | null {
  if (typeof url !== 'string' || url.trim() === '') return 'url is required for an api_endpoint source';
  if (url.length > MAX_URL) return `url is longer than ${MAX_URL} characters`;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'url must be an http or https URL';
  } catch {
    return 'url must be an http or https URL';
  }
  return null;
}

function headersProblem(headers: unknown): string | null {
  if (!isObject(headers)) return 'headers must be an object of header names and string values';
  const entries = Object.entries(headers);
  if (entries.length > MAX_HEADERS) return `headers may have at most ${MAX_HEADERS} entries`;
  for (const [name, value] of entries) {
    if (!HEADER_NAME.test(name)) return `header name '${name}' is not a valid HTTP header name`;
    if (RESERVED_HEADERS.has(name.toLowerCase())) return `header '${name}' is set by the request itself`;
    if (typeof value !== 'string') return `header '${name}' must have a string value`;
    if (/[\r\n\0]/.test(value)) return `header '${name}' must not contain line breaks`;
    if (value.length > MAX_HEADER_VALUE) return `header '${name}' is longer than ${MAX_HEADER_VALUE} characters`;
  }
  return null;
}

function dotPathProblem(name: string, value: unknown): string | null {
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string' || value.length > MAX_PATH || !pathSegments(value).every((s) => PATH_SEGMENT.test(s))) {
    return `${name} must be a dot-separated path of names (letters, digits, _ and -)`;
  }
  return null;
}

function apiEndpointProblem(d: Record<string, unknown>): string | null {
  const problem = urlProblem(d.url);
  if (problem) return problem;
  if (d.method !== undefined && (typeof d.method !== 'string' || !['GET', 'POST'].includes(d.method.toUpperCase()))) return 'method must be GET or POST';
  if (d.headers !== undefined) {
    const headers = headersProblem(d.headers);
    if (headers) return headers;
  }
  const path = dotPathProblem('json_path', d.json_path) ?? dotPathProblem('value_field', d.value_field);
  if (path) return path;
  if (d.timeout !== undefined && (!isWholeNumber(d.timeout) || d.timeout < 1 || d.timeout > MAX_TIMEOUT)) {
    return `timeout must be a whole number of seconds from 1 to ${MAX_TIMEOUT}`;
  }
  if (d.body !== undefined) {
    if (!isObject(d.body)) return 'body must be an object';
    if (JSON.stringify(d.body).length > MAX_BODY) return `body is larger than ${MAX_BODY} characters`;
  }
  return null;
}

function jinja2Problem(d: Record<string, unknown>): string | null {
  if (typeof d.template !== 'string' || d.template.trim() === '') return 'template is required for a jinja2 source';
  const syntax = checkSyntax(d.template);
  return syntax ? `template does not parse: ${syntax}` : null;
}

const SOURCE_PROBLEMS: Record<SourceType, (d: Record<string, unknown>) => string | null> = {
  db_query: dbQueryProblem,
  api_endpoint: apiEndpointProblem,
  jinja2: jinja2Problem,
};

/** What is wrong with a question's dynamic_choices object, or null. */
export function dynamicChoicesProblem(d: unknown): string | null {
  if (!isObject(d)) return 'must be an object';
  if (typeof d.enabled !== 'boolean') return 'enabled must be true or false';
  if (d.cache_ttl !== undefined && (!isWholeNumber(d.cache_ttl) || d.cache_ttl < 0 || d.cache_ttl > MAX_CACHE_TTL)) {
    return `cache_ttl must be a whole number of seconds from 0 to ${MAX_CACHE_TTL}`;
  }
  const type = d.source_type;
  if (type === undefined && !d.enabled) {
    const unknown = Object.keys(d).find((key) => !COMMON_KEYS.includes(key));
    return unknown ? `'${unknown}' needs a source_type` : null;
  }
  if (typeof type !== 'string' || !(SOURCE_TYPES as readonly string[]).includes(type)) return `source_type must be one of ${SOURCE_TYPES.join(', ')}`;
  const allowed = [...COMMON_KEYS, ...KEYS[type as SourceType]];
  const unknown = Object.keys(d).find((key) => !allowed.includes(key));
  if (unknown) return `'${unknown}' is not a setting of a ${type} source (it takes ${KEYS[type as SourceType].join(', ')})`;
  return SOURCE_PROBLEMS[type as SourceType](d);
}
