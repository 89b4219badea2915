import type { RequestContext, ResourceSet } from './context.ts';
import { ApiError, badRequest } from './errors.ts';
import { MAX_INTEGER, normalizeIsoDatetime, type Field } from './fields.ts';
import { checkFilterRegex, checkFilterRegexes } from './regex-guard.ts';
import type { Resource } from './resource.ts';
import { ident, Params } from './sql.ts';

/** Query parameters that are never field filters. */
export const RESERVED_PARAMS = new Set([
  'page', 'page_size', 'format', 'order', 'order_by', 'search', 'type', 'host_filter', 'count_disabled', 'no_truncate', 'limit', 'validate',
]);

const LOOKUPS = new Set([
  'exact', 'iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith',
  'gt', 'gte', 'lt', 'lte', 'in', 'isnull', 'regex', 'iregex',
]);

type Query = Record<string, string | string[] | undefined>;

interface Target {
  /** SQL expression of the column, over the innermost alias. */
  column: string;
  field: Field | null;
  /** Wraps a condition on the innermost alias into one on the outer alias. */
  wrap: (condition: string) => string;
}

let aliasCounter = 0;
const nextAlias = () => `r${++aliasCounter % 1_000_000}`;

/** What resolving one filter key needs besides the path: who asks, the query's parameters, the key itself. */
interface Walk {
  /** Null: every related object counts, whoever looks (a smart inventory's filter). */
  ctx: RequestContext | null;
  resources: ResourceSet;
  params: Params;
  key: string;
  /** resource.field names already followed, so a path cannot go round in a loop (as AWX refuses). */
  followed: Set<string>;
}

/** `AND <condition>` limiting a hop into `target` (aliased `inner`) to the rows the caller may see. */
function visibleHop(target: Resource, inner: string, walk: Walk): string {
  const visible = walk.ctx && target.access.visible(walk.ctx, inner, walk.params);
  return visible ? ` AND ${visible}` : '';
}

function follow(resource: Resource, name: string, walk: Walk): void {
  const step = `${resource.name}.${name}`;
  if (walk.followed.has(step)) throw badRequest(`Loops not allowed in filters, detected on field ${name}.`);
  walk.followed.add(step);
}

/**
 * Resolves a path such as organization__name or users__username against a resource, following
 * reference fields and related lists through IN subqueries. Each hop only reaches the related
 * objects the caller may see, so a filter cannot tell anything about the others (a reference's
 * own id, which the object shows anyway, is compared without a hop).
 */
function resolvePath(resource: Resource, alias: string, path: string[], walk: Walk): Target {
  const [head, ...rest] = path;
  if (head === 'id' || head === 'pk') {
    if (rest.length) throw unknownField(walk.key);
    return { column: `${alias}.id`, field: null, wrap: (c) => c };
  }
  const field = own(resource.allFields, head);
  if (field) {
    if (field.secret) throw new ApiError(403, { detail: `Filtering on ${head} is not allowed.` });
    if (!rest.length || (field.ref && rest.length === 1 && (rest[0] === 'id' || rest[0] === 'pk'))) {
      if (!field.filterable) throw new ApiError(403, { detail: `Filtering on ${head} is not allowed.` });
      return { column: `${alias}.${ident(field.column)}`, field, wrap: (c) => c };
    }
    if (!field.ref) throw unknownField(walk.key);
    follow(resource, head, walk);
    const target = walk.resources.get(field.ref);
    const inner = nextAlias();
    const resolved = resolvePath(target, inner, rest, walk);
    const visible = visibleHop(target, inner, walk);
    return {
      ...resolved,
      wrap: (c) => `${alias}.${ident(field.column)} IN (SELECT ${inner}.id FROM ${ident(target.table)} ${inner} WHERE ${resolved.wrap(c)}${visible})`,
    };
  }
  const relation = own(resource.related, head);
  if (relation) {
    follow(resource, head, walk);
    const target = walk.resources.get(relation.target);
    const inner = nextAlias();
    const resolved = resolvePath(target, inner, rest.length ? rest : ['id'], walk);
    const visible = visibleHop(target, inner, walk);
    return {
      ...resolved,
      wrap: (c) =>
        `${alias}.id IN (SELECT ${relation.parentColumn} FROM ${relation.from} WHERE ${relation.targetColumn} IN ` +
        `(SELECT ${inner}.id FROM ${ident(target.table)} ${inner} WHERE ${resolved.wrap(c)}${visible}))`,
    };
  }
  throw unknownField(walk.key);
}

/** A declared name, never one an object inherits (?constructor=, ?toString__name=). */
const own = <T>(declared: Record<string, T>, name: string): T | undefined => (Object.hasOwn(declared, name) ? declared[name] : undefined);

const unknownField = (name: string) => badRequest(`Cannot filter on ${JSON.stringify(name)}: no such field.`);

function parseBoolean(raw: string, key: string): boolean {
  const v = raw.toLowerCase();
  if (v === 'true' || v === '1' || v === 't') return true;
  if (v === 'false' || v === '0' || v === 'f') return false;
  throw badRequest(`${key}: "${raw}" is not a valid boolean.`);
}

/** Reads a query-string value as the field's type, so a bad value is a 400 instead of a database error. */
function coerce(field: Field | null, raw: string, key: string): unknown {
  const kind = field?.filterKind ?? 'integer';
  switch (kind) {
    case 'integer': {
      const digits = raw.trim();
      if (!INTEGER_FILTER_TEXT.test(digits)) throw badRequest(`${key}: "${raw}" is not a valid integer.`);
      // Past the columns' range no row matches (or every row does, for gt/lt): compared as numeric, as AWX answers an empty page.
      return beyondIntegerColumns(digits) ? digits : Number(digits);
    }
    case 'float': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw badRequest(`${key}: "${raw}" is not a valid number.`);
      return n;
    }
    case 'boolean':
      return parseBoolean(raw, key);
    case 'datetime': {
      // The text goes to the database as given (normalized), so microseconds are compared too.
      const text = normalizeIsoDatetime(raw);
      const d = text === null ? null : new Date(text);
      // An offset may move a year-9999 value past what the database accepts.
      if (!d || d.getUTCFullYear() < 1 || d.getUTCFullYear() > 9999) throw badRequest(`${key}: "${raw}" is not a valid date or datetime.`);
      return text;
    }
    default:
      return raw;
  }
}

/** An integer as Python's int() reads it from a query string. */
const INTEGER_FILTER_TEXT = /^[-+]?\d+$/;
const beyondIntegerColumns = (digits: string) => Math.abs(Number(digits)) > MAX_INTEGER;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function condition(target: Target, lookup: string, raw: string, key: string, params: Params): string {
  const col = target.column;
  const kind = target.field?.filterKind ?? 'integer';
  // A reference compared with "null" or "none" asks for objects without one (as AWX).
  if (lookup === 'exact' && target.field?.ref && ['null', 'none'].includes(raw.toLowerCase())) return `${col} IS NULL`;
  if (lookup === 'isnull') return parseBoolean(raw, key) ? `${col} IS NULL` : `${col} IS NOT NULL`;
  if (lookup === 'in') {
    const values = raw.split(',').map((v) => coerce(target.field, v, key));
    const big = kind === 'integer' && values.some((v) => typeof v === 'string');
    const arrayCast = big ? '::numeric[]' : { text: '::text[]', json: '::text[]', boolean: '::boolean[]', datetime: '::timestamptz[]', integer: '::integer[]', float: '::float8[]' }[kind];
    return `${kind === 'json' ? `${col}::text` : col} = ANY(${params.add(values)}${arrayCast})`;
  }
  const textual = ['iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'regex', 'iregex'];
  if (textual.includes(lookup)) {
    const text = `${col}::text`;
    switch (lookup) {
      case 'iexact': return `lower(${text}) = lower(${params.add(raw)})`;
      case 'contains': return `${text} LIKE ${params.add(`%${escapeLike(raw)}%`)}`;
      case 'icontains': return `${text} ILIKE ${params.add(`%${escapeLike(raw)}%`)}`;
      case 'startswith': return `${text} LIKE ${params.add(`${escapeLike(raw)}%`)}`;
      case 'istartswith': return `${text} ILIKE ${params.add(`${escapeLike(raw)}%`)}`;
      case 'endswith': return `${text} LIKE ${params.add(`%${escapeLike(raw)}`)}`;
      case 'iendswith': return `${text} ILIKE ${params.add(`%${escapeLike(raw)}`)}`;
      case 'regex':
        checkFilterRegex(raw, key);
        return `${text} ~ ${params.add(raw)}`;
      default:
        checkFilterRegex(raw, key);
        return `${text} ~* ${params.add(raw)}`;
    }
  }
  const value = coerce(target.field, raw, key);
  const op = { exact: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' }[lookup]!;
  const big = kind === 'integer' && typeof value === 'string';
  const cast = kind === 'datetime' ? '::timestamptz' : kind === 'text' ? '::text' : kind === 'boolean' ? '::boolean' : kind === 'float' ? '::float8' : big ? '::numeric' : '::integer';
  if (kind === 'json') return `${col}::text ${op} ${params.add(raw)}`;
  return `${col} ${op} ${params.add(value)}${cast}`;
}

/** Builds the condition for one filter key such as not__organization__name__icontains. */
function filterCondition(ctx: RequestContext | null, resources: ResourceSet, resource: Resource, alias: string, key: string, raw: string, params: Params): { sql: string; group: 'and' | 'or' } {
  let parts = key.split('__');
  let negate = false;
  let group: 'and' | 'or' = 'and';
  for (;;) {
    if (parts[0] === 'not') { negate = !negate; parts = parts.slice(1); continue; }
    if (parts[0] === 'or') { group = 'or'; parts = parts.slice(1); continue; }
    if (parts[0] === 'chain') { parts = parts.slice(1); continue; }
    break;
  }
  if (!parts.length || parts.some((p) => p === '')) throw unknownField(key);
  let sql: string;
  if (parts.length > 1 && parts[parts.length - 1] === 'search') {
    sql = relatedSearch(ctx, resources, resource, alias, parts.slice(0, -1), raw, key, params);
  } else {
    let lookup = 'exact';
    if (parts.length > 1 && LOOKUPS.has(parts[parts.length - 1])) lookup = parts.pop()!;
    const target = resolvePath(resource, alias, parts, { ctx, resources, params, key, followed: new Set() });
    sql = target.wrap(condition(target, lookup, raw, key, params));
  }
  // A negated condition that is unknown (a null column) counts as not matching, so the row stays (as Django's exclude).
  return { sql: negate ? `NOT COALESCE((${sql}), false)` : sql, group };
}

/** Text fields of a related object that <relation>__search looks in (as AWX). */
const RELATED_SEARCH_FIELDS = ['username', 'first_name', 'last_name', 'email', 'name', 'description'];

/** The resource a path of references and related lists leads to. */
/** The resource a reference field or related list of `resource` leads to, if `name` is one. */
const stepTo = (resource: Resource, name: string): string | undefined => own(resource.allFields, name)?.ref ?? own(resource.related, name)?.target;

function targetResource(resources: ResourceSet, resource: Resource, path: string[], key: string): Resource {
  let current = resource;
  for (const name of path) {
    const next = stepTo(current, name);
    if (!next) throw unknownField(key);
    current = resources.get(next);
  }
  return current;
}

/** Prefixes a filter key may start with. */
const PREFIXES = new Set(['not', 'or', 'chain']);

/**
 * Every resource the filters of `query` reach through references and related lists, whose
 * access policies decide what those filters may match (see AccessPolicy.prepare).
 */
export function filterTargets(resources: ResourceSet, resource: Resource, query: Query): Resource[] {
  const found = new Set<Resource>();
  for (const key of Object.keys(query)) {
    if (RESERVED_PARAMS.has(key)) continue;
    const parts = key.split('__');
    while (PREFIXES.has(parts[0])) parts.shift();
    let current = resource;
    for (const name of parts) {
      const next = stepTo(current, name);
      if (!next) break;
      current = resources.get(next);
      found.add(current);
    }
  }
  return [...found];
}

/** organization__search=term: every comma-separated term in one of the related object's text fields. */
function relatedSearch(ctx: RequestContext | null, resources: ResourceSet, resource: Resource, alias: string, path: string[], raw: string, key: string, params: Params): string {
  const target = targetResource(resources, resource, path, key);
  const fields = RELATED_SEARCH_FIELDS.filter((f) => target.allFields[f] && !target.allFields[f].secret);
  if (!fields.length) throw badRequest(`${path.join('__')} is not searchable.`);
  const terms = raw.split(',').filter((term) => term !== '');
  if (!terms.length) return 'true';
  return terms
    .map((term) => {
      const any = fields.map((f) => {
        const t = resolvePath(resource, alias, [...path, f], { ctx, resources, params, key, followed: new Set() });
        return t.wrap(condition(t, 'icontains', term, key, params));
      });
      return `(${any.join(' OR ')})`;
    })
    .join(' AND ');
}

/**
 * Turns list query parameters into SQL conditions over `alias`. Plain and chain__ filters all
 * must hold; or__ filters form one group of which any may hold; not__ negates. Paths through
 * related objects (found in `resources`) only reach those `ctx` may see (every one when null).
 */
export function buildFilters(ctx: RequestContext | null, resources: ResourceSet, resource: Resource, alias: string, query: Query, params: Params): string[] {
  const and: string[] = [];
  const or: string[] = [];
  checkFilterRegexes(Object.entries(query).filter(([key]) => /__i?regex$/.test(key)).flatMap(([key, value]) => [value ?? []].flat().map((pattern): [string, string] => [key, pattern])));
  for (const [key, value] of Object.entries(query)) {
    // A resource's own query filters (queryFilters) read their parameters themselves.
    if (RESERVED_PARAMS.has(key) || Object.hasOwn(resource.queryFilters, key) || value === undefined) continue;
    for (const raw of Array.isArray(value) ? value : [value]) {
      const { sql, group } = filterCondition(ctx, resources, resource, alias, key, raw, params);
      (group === 'or' ? or : and).push(sql);
    }
  }
  if (or.length) and.push(`(${or.join(' OR ')})`);
  // ?type=a,b keeps the list only when it is of one of those types (AWX's TypeFilterBackend).
  const types = [query.type].flat().filter((v): v is string => v !== undefined);
  if (types.length) {
    const asked = types.join(',').split(',');
    if (resource.typeColumn) and.push(`${alias}.${ident(resource.typeColumn)} = ANY(${params.add(asked)}::text[])`);
    else if (!asked.includes(resource.name)) and.push('false');
  }
  const search = query.search;
  if (search !== undefined) and.push(...buildSearch(resource, alias, Array.isArray(search) ? search.join(',') : search, params));
  return and;
}

/** Terms separated by commas or spaces ("quoted phrases" kept whole), as DRF's SearchFilter splits them. */
function searchTerms(search: string): string[] {
  return [...search.replace(/\0/g, '').matchAll(/"([^"]*)"|[^\s,]+/g)].map((m) => m[1] ?? m[0]).filter(Boolean);
}

/** Every term must appear (case-insensitively) in one of the resource's search fields. */
function buildSearch(resource: Resource, alias: string, search: string, params: Params): string[] {
  const terms = searchTerms(search);
  if (!resource.search.length) return [];
  return terms.map((term) => {
    const p = params.add(`%${escapeLike(term)}%`);
    return `(${resource.search.map((f) => `${alias}.${ident(resource.allFields[f].column)} ILIKE ${p}`).join(' OR ')})`;
  });
}

/**
 * ORDER BY for ?order_by=a,-b; secret fields and unknown names are 400. A referenced object's
 * field orders by its value only where `ctx` may see that object (null elsewhere), so the order
 * tells nothing about the others.
 */
export function buildOrdering(ctx: RequestContext, resource: Resource, alias: string, orderBy: string | undefined, params: Params): string {
  // "type" names the model of every row here, so ordering by it changes nothing (as AWX drops it).
  const asked = (orderBy ?? '').split(',').map((t) => t.trim()).filter((t) => t && t !== 'type' && t !== '-type');
  const spec = asked.length ? asked : resource.ordering.split(',');
  const terms = spec.map((term) => {
    const desc = term.startsWith('-');
    const name = desc ? term.slice(1) : term;
    const path = name.split('__');
    let column: string;
    if (path.length === 1 && (name === 'id' || name === 'pk')) column = `${alias}.id`;
    else {
      const field = own(resource.allFields, path[0]);
      if (!field) throw badRequest(`Cannot order by ${JSON.stringify(name)}: no such field.`);
      if (field.secret) throw badRequest(`Ordering by ${path[0]} is not allowed.`);
      if (path.length === 1) column = `${alias}.${ident(field.column)}`;
      else if (field.ref && path.length === 2) {
        const target = ctx.service.resources.get(field.ref);
        const targetField = path[1] === 'id' ? null : own(target.allFields, path[1]);
        if (path[1] !== 'id' && !targetField) throw badRequest(`Cannot order by ${JSON.stringify(name)}: no such field.`);
        if (targetField?.secret) throw badRequest(`Ordering by ${name} is not allowed.`);
        if (!targetField) column = `${alias}.${ident(field.column)}`;
        else {
          const inner = nextAlias();
          const visible = target.access.visible(ctx, inner, params);
          column = `(SELECT ${inner}.${ident(targetField.column)} FROM ${ident(target.table)} ${inner} WHERE ${inner}.id = ${alias}.${ident(field.column)}${visible ? ` AND ${visible}` : ''})`;
        }
      } else throw badRequest(`Cannot order by ${JSON.stringify(name)}: no such field.`);
    }
    return `${column} ${desc ? 'DESC' : 'ASC'}${desc ? ' NULLS LAST' : ' NULLS FIRST'}`;
  });
  // A final tie-break on id keeps pages stable when the ordering has equal values.
  terms.push(`${alias}.id ${spec[0].startsWith('-') ? 'DESC' : 'ASC'}`);
  return terms.join(', ');
}
