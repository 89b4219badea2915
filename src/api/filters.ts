import { ApiError, badRequest } from './errors.ts';
import type { Field } from './fields.ts';
import { getResource, type Resource } from './resource.ts';
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

/**
 * Resolves a path such as organization__name or users__username against a resource, following
 * reference fields and related lists through IN subqueries.
 */
function resolvePath(resource: Resource, alias: string, path: string[], original: string): Target {
  const [head, ...rest] = path;
  if (head === 'id' || head === 'pk') {
    if (rest.length) throw unknownField(original);
    return { column: `${alias}.id`, field: null, wrap: (c) => c };
  }
  const field = resource.allFields[head];
  if (field) {
    if (field.secret) throw new ApiError(403, { detail: `Filtering on ${head} is not allowed.` });
    if (!rest.length || (field.ref && rest.length === 1 && (rest[0] === 'id' || rest[0] === 'pk'))) {
      if (!field.filterable) throw new ApiError(403, { detail: `Filtering on ${head} is not allowed.` });
      return { column: `${alias}.${ident(field.column)}`, field, wrap: (c) => c };
    }
    if (!field.ref) throw unknownField(original);
    const target = getResource(field.ref);
    const inner = nextAlias();
    const resolved = resolvePath(target, inner, rest, original);
    return {
      ...resolved,
      wrap: (c) => `${alias}.${ident(field.column)} IN (SELECT ${inner}.id FROM ${ident(target.table)} ${inner} WHERE ${resolved.wrap(c)})`,
    };
  }
  const relation = resource.related[head];
  if (relation) {
    const target = getResource(relation.target);
    const inner = nextAlias();
    const resolved = rest.length ? resolvePath(target, inner, rest, original) : resolvePath(target, inner, ['id'], original);
    return {
      ...resolved,
      wrap: (c) =>
        `${alias}.id IN (SELECT ${relation.parentColumn} FROM ${relation.from} WHERE ${relation.targetColumn} IN ` +
        `(SELECT ${inner}.id FROM ${ident(target.table)} ${inner} WHERE ${resolved.wrap(c)}))`,
    };
  }
  throw unknownField(original);
}

const unknownField = (name: string) => badRequest(`Cannot filter on ${JSON.stringify(name)}: no such field.`);

function parseBoolean(raw: string, key: string): boolean {
  const v = raw.toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw badRequest(`${key}: "${raw}" is not a valid boolean.`);
}

/** Reads a query-string value as the field's type, so a bad value is a 400 instead of a database error. */
function coerce(field: Field | null, raw: string, key: string): unknown {
  const kind = field?.filterKind ?? 'integer';
  switch (kind) {
    case 'integer': {
      if (!/^-?\d+$/.test(raw.trim()) || Math.abs(Number(raw)) > 2_147_483_647) throw badRequest(`${key}: "${raw}" is not a valid integer.`);
      return Number(raw);
    }
    case 'float': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw badRequest(`${key}: "${raw}" is not a valid number.`);
      return n;
    }
    case 'boolean':
      return parseBoolean(raw, key);
    case 'datetime': {
      const d = new Date(raw);
      if (Number.isNaN(d.getTime())) throw badRequest(`${key}: "${raw}" is not a valid date or datetime.`);
      return d.toISOString();
    }
    default:
      return raw;
  }
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

function condition(target: Target, lookup: string, raw: string, key: string, params: Params): string {
  const col = target.column;
  const kind = target.field?.filterKind ?? 'integer';
  if (lookup === 'isnull') return parseBoolean(raw, key) ? `${col} IS NULL` : `${col} IS NOT NULL`;
  if (lookup === 'in') {
    const values = raw.split(',').map((v) => coerce(target.field, v, key));
    const arrayCast = { text: '::text[]', json: '::text[]', boolean: '::boolean[]', datetime: '::timestamptz[]', integer: '::integer[]', float: '::float8[]' }[kind];
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
      case 'regex': return `${text} ~ ${params.add(raw)}`;
      default: return `${text} ~* ${params.add(raw)}`;
    }
  }
  const value = coerce(target.field, raw, key);
  const op = { exact: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' }[lookup]!;
  const cast = kind === 'datetime' ? '::timestamptz' : kind === 'text' ? '::text' : kind === 'boolean' ? '::boolean' : kind === 'float' ? '::float8' : '::integer';
  if (kind === 'json') return `${col}::text ${op} ${params.add(raw)}`;
  return `${col} ${op} ${params.add(value)}${cast}`;
}

/** Builds the condition for one filter key such as not__organization__name__icontains. */
function filterCondition(resource: Resource, alias: string, key: string, raw: string, params: Params): { sql: string; group: 'and' | 'or' } {
  let parts = key.split('__');
  let negate = false;
  let group: 'and' | 'or' = 'and';
  for (;;) {
    if (parts[0] === 'not') { negate = !negate; parts = parts.slice(1); continue; }
    if (parts[0] === 'or') { group = 'or'; parts = parts.slice(1); continue; }
    if (parts[0] === 'chain') { parts = parts.slice(1); continue; }
    break;
  }
  let lookup = 'exact';
  if (parts.length > 1 && LOOKUPS.has(parts[parts.length - 1])) lookup = parts.pop()!;
  if (!parts.length || parts.some((p) => p === '')) throw unknownField(key);
  const target = resolvePath(resource, alias, parts, key);
  const inner = condition(target, lookup, raw, key, params);
  const sql = target.wrap(inner);
  return { sql: negate ? `NOT (${sql})` : sql, group };
}

/**
 * Turns list query parameters into SQL conditions over `alias`. Plain and chain__ filters all
 * must hold; or__ filters form one group of which any may hold; not__ negates.
 */
export function buildFilters(resource: Resource, alias: string, query: Query, params: Params): string[] {
  const and: string[] = [];
  const or: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (RESERVED_PARAMS.has(key) || value === undefined) continue;
    for (const raw of Array.isArray(value) ? value : [value]) {
      const { sql, group } = filterCondition(resource, alias, key, raw, params);
      (group === 'or' ? or : and).push(sql);
    }
  }
  if (or.length) and.push(`(${or.join(' OR ')})`);
  const search = query.search;
  if (search !== undefined) and.push(...buildSearch(resource, alias, Array.isArray(search) ? search.join(',') : search, params));
  return and;
}

/** Every comma-separated term must appear (case-insensitively) in one of the resource's search fields. */
function buildSearch(resource: Resource, alias: string, search: string, params: Params): string[] {
  const terms = search.split(',').map((t) => t.trim()).filter(Boolean);
  if (!resource.search.length) return [];
  return terms.map((term) => {
    const p = params.add(`%${escapeLike(term)}%`);
    return `(${resource.search.map((f) => `${alias}.${ident(resource.allFields[f].column)} ILIKE ${p}`).join(' OR ')})`;
  });
}

/** ORDER BY for ?order_by=a,-b; secret fields and unknown names are 400. */
export function buildOrdering(resource: Resource, alias: string, orderBy: string | undefined): string {
  const spec = orderBy && orderBy.trim() ? orderBy : resource.ordering;
  const terms = spec.split(',').map((t) => t.trim()).filter(Boolean).map((term) => {
    const desc = term.startsWith('-');
    const name = desc ? term.slice(1) : term;
    const path = name.split('__');
    let column: string;
    if (path.length === 1 && (name === 'id' || name === 'pk')) column = `${alias}.id`;
    else {
      const field = resource.allFields[path[0]];
      if (!field) throw badRequest(`Cannot order by ${JSON.stringify(name)}: no such field.`);
      if (field.secret) throw badRequest(`Ordering by ${path[0]} is not allowed.`);
      if (path.length === 1) column = `${alias}.${ident(field.column)}`;
      else if (field.ref && path.length === 2) {
        const target = getResource(field.ref);
        const targetField = path[1] === 'id' ? null : target.allFields[path[1]];
        if (path[1] !== 'id' && !targetField) throw badRequest(`Cannot order by ${JSON.stringify(name)}: no such field.`);
        if (targetField?.secret) throw badRequest(`Ordering by ${name} is not allowed.`);
        column = `(SELECT o.${targetField ? ident(targetField.column) : 'id'} FROM ${ident(target.table)} o WHERE o.id = ${alias}.${ident(field.column)})`;
      } else throw badRequest(`Cannot order by ${JSON.stringify(name)}: no such field.`);
    }
    return `${column} ${desc ? 'DESC' : 'ASC'}${desc ? ' NULLS LAST' : ' NULLS FIRST'}`;
  });
  // A final tie-break on id keeps pages stable when the ordering has equal values.
  terms.push(`${alias}.id ${spec.trim().startsWith('-') ? 'DESC' : 'ASC'}`);
  return terms.join(', ');
}
