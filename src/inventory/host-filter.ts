import { ApiError } from '../api/errors.ts';
import { buildFilters, RESERVED_PARAMS } from '../api/filters.ts';
import { checkFilterRegexes } from '../api/regex-guard.ts';
import type { ResourceSet } from '../api/context.ts';
import type { Params } from '../api/sql.ts';

/**
 * Smart inventory host filters in AWX's syntax: terms `field__lookup=value` (any filter the host
 * list accepts, `search=`, and `ansible_facts__a__b=value` for facts) combined with `and`, `or`,
 * `not` and parentheses. Values may be "quoted". Compiled to one SQL condition over a host alias.
 */
export class HostFilterError extends Error {
  /** Whether the message is complete as it stands (else it is prefixed with the query). */
  constructor(message: string, readonly complete = false) {
    super(message);
  }
}

type Token = { kind: 'open' | 'close' | 'equals' } | { kind: 'atom' | 'quoted'; text: string };

const SPECIAL = new Set(['(', ')', '=', '"']);
/** The parser and the SQL writer recurse once per operator and parenthesis: their count is bounded. */
const MAX_OPERATORS = 200;
const OPERATOR_WORDS = new Set(['and', 'or', 'not']);

function tokenize(filter: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < filter.length) {
    const c = filter[i];
    if (/\s/.test(c)) i += 1;
    else if (c === '(' || c === ')' || c === '=') {
      tokens.push({ kind: c === '(' ? 'open' : c === ')' ? 'close' : 'equals' });
      i += 1;
    } else if (c === '"') {
      const end = filter.indexOf('"', i + 1);
      if (end < 0) throw new HostFilterError('unterminated quote');
      tokens.push({ kind: 'quoted', text: filter.slice(i + 1, end) });
      i = end + 1;
    } else {
      let j = i;
      while (j < filter.length && !SPECIAL.has(filter[j]) && !/\s/.test(filter[j])) j += 1;
      tokens.push({ kind: 'atom', text: filter.slice(i, j) });
      i = j;
    }
  }
  return tokens;
}

interface Term {
  key: string;
  value: string;
  quoted: boolean;
}
type Node = { op: 'and' | 'or'; left: Node; right: Node } | { op: 'not'; operand: Node } | { op: 'term'; term: Term };

/** Recursive descent with AWX's precedence: not, then and, then or. */
class Parser {
  private at = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): Node {
    const node = this.or();
    if (this.at < this.tokens.length) throw new HostFilterError('unexpected text');
    return node;
  }

  private keyword(word: string): boolean {
    const t = this.tokens[this.at];
    const next = this.tokens[this.at + 1];
    if (t?.kind === 'atom' && t.text === word && next?.kind !== 'equals') {
      this.at += 1;
      return true;
    }
    return false;
  }

  private or(): Node {
    let left = this.and();
    while (this.keyword('or')) left = { op: 'or', left, right: this.and() };
    return left;
  }

  private and(): Node {
    let left = this.not();
    while (this.keyword('and')) left = { op: 'and', left, right: this.not() };
    return left;
  }

  private not(): Node {
    if (this.keyword('not')) return { op: 'not', operand: this.not() };
    return this.primary();
  }

  private primary(): Node {
    const t = this.tokens[this.at];
    if (t?.kind === 'open') {
      this.at += 1;
      const inner = this.or();
      if (this.tokens[this.at]?.kind !== 'close') throw new HostFilterError('missing ")"');
      this.at += 1;
      return inner;
    }
    if (t?.kind !== 'atom' && t?.kind !== 'quoted') throw new HostFilterError('expected field=value');
    if (this.tokens[this.at + 1]?.kind !== 'equals') throw new HostFilterError('expected field=value');
    this.at += 2;
    const v = this.tokens[this.at];
    if (v?.kind === 'atom' || v?.kind === 'quoted') {
      this.at += 1;
      return { op: 'term', term: { key: t.text, value: v.text, quoted: v.kind === 'quoted' } };
    }
    return { op: 'term', term: { key: t.text, value: '', quoted: true } };
  }
}

/** Lookups ansible_facts cannot use: facts are matched by containment only (as AWX). */
const FACT_LOOKUPS = new Set([
  'iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'gt', 'gte', 'lt', 'lte', 'in', 'isnull',
  'regex', 'iregex', 'contained_by', 'has_key', 'has_keys', 'has_any_keys',
]);

/** An unquoted fact value is typed as AWX reads it: true, false, integers and decimals; anything else is text. */
function typedValue(term: Term): unknown {
  if (term.quoted) return term.value;
  if (term.value === 'true') return true;
  if (term.value === 'false') return false;
  if (/^[-+]?\d+$/.test(term.value) || /^[-+]?\d+\.\d+$/.test(term.value)) return Number(term.value);
  return term.value;
}

/** ansible_facts__a__b=v as the JSON document the facts must contain ({"a": {"b": v}}); `x[]` is a list holding the rest. */
function factDocument(term: Term): unknown {
  const path = term.key.replace(/^ansible_facts(__)?/, '').split('__');
  if (path.some((p) => p === '' || p === '[]')) throw new HostFilterError(`no fact named in "${term.key}"`);
  const last = path[path.length - 1];
  if (FACT_LOOKUPS.has(last)) throw new HostFilterError(`ansible_facts does not support searching with __${last}`, true);
  if (last === 'exact') path.pop();
  let doc: unknown = typedValue(term);
  for (const piece of [...path].reverse()) {
    doc = piece.endsWith('[]') ? { [piece.slice(0, -2)]: [doc] } : { [piece]: doc };
  }
  return doc;
}

function termCondition(resources: ResourceSet, term: Term, alias: string, params: Params): string {
  if (term.key === 'ansible_facts' || term.key.startsWith('ansible_facts__')) {
    return `${alias}.ansible_facts @> ${params.add(JSON.stringify(factDocument(term)))}::jsonb`;
  }
  if (RESERVED_PARAMS.has(term.key) && term.key !== 'search') throw new HostFilterError(`"${term.key}" cannot be filtered on`);
  try {
    // A smart inventory's membership does not depend on who looks at it: related paths reach every object.
    const conditions = buildFilters(null, resources, resources.get('host'), alias, { [term.key]: term.value }, params);
    return conditions.length ? `(${conditions.join(' AND ')})` : 'true';
  } catch (err) {
    if (err instanceof ApiError) throw new HostFilterError(String(err.body.detail ?? err.message));
    throw err;
  }
}

function toSql(resources: ResourceSet, node: Node, alias: string, params: Params): string {
  switch (node.op) {
    case 'term': return termCondition(resources, node.term, alias, params);
    case 'not': return `NOT COALESCE((${toSql(resources, node.operand, alias, params)}), false)`;
    default: return `(${toSql(resources, node.left, alias, params)} ${node.op.toUpperCase()} ${toSql(resources, node.right, alias, params)})`;
  }
}

function termsOf(node: Node): Term[] {
  switch (node.op) {
    case 'term': return [node.term];
    case 'not': return termsOf(node.operand);
    default: return [...termsOf(node.left), ...termsOf(node.right)];
  }
}

/** The regular expressions of the whole filter are held to one request's limits together (count and cost). */
function checkRegexTerms(root: Node): void {
  try {
    checkFilterRegexes(termsOf(root).filter((term) => /__i?regex$/.test(term.key)).map((term) => [term.key, term.value]));
  } catch (err) {
    if (err instanceof ApiError) throw new HostFilterError(String(err.body.detail ?? err.message));
    throw err;
  }
}

/**
 * The SQL condition a host filter makes over the hosts table aliased `alias`, its paths resolved
 * through `resources`; HostFilterError when it is not valid.
 */
export function compileHostFilter(resources: ResourceSet, filter: string, alias: string, params: Params): string {
  try {
    const tokens = tokenize(filter);
    if (!tokens.length) throw new HostFilterError('empty filter');
    const operators = tokens.filter((t) => t.kind === 'open' || (t.kind === 'atom' && OPERATOR_WORDS.has(t.text))).length;
    if (operators > MAX_OPERATORS) throw new HostFilterError(`more than ${MAX_OPERATORS} operators and parentheses`);
    const root = new Parser(tokens).parse();
    checkRegexTerms(root);
    return toSql(resources, root, alias, params);
  } catch (err) {
    if (err instanceof HostFilterError && !err.complete) throw new HostFilterError(`Invalid query ${filter}: ${err.message}`, true);
    throw err;
  }
}
