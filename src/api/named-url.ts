import type { Queryable, ResourceRow } from '../db/database.ts';
import { notFound, UnknownNamedUrl } from './errors.ts';
import type { Resource } from './resource.ts';
import type { ResourceSet } from './context.ts';
import { ident, Params } from './sql.ts';

/**
 * Named URLs as AWX builds them (its named URL graph). A resource's `namedUrl` lists its own fields
 * and its references: the own values are joined by "+", then each reference adds, after "++", the
 * referenced object's own named URL, or "" when the reference is empty. So a team is
 * `Ops++Default`, a credential type `Machine+ssh`, a credential `Demo Credential++Machine+ssh++`
 * (name, credential type, no organization) and a host `web1++Prod++Default`. A "+" inside a value
 * is written "[+]".
 */
const NODE_SEPARATOR = '++';
const FIELD_SEPARATOR = '+';
const ESCAPED_PLUS = '[+]';

/** Rows of referenced objects already loaded, and the resources their names stand for. */
type Refs = { get(resource: string, id: unknown): ResourceRow | undefined; resource(name: string): Resource };

function ownFields(resource: Resource): string[] {
  return resource.namedUrl!.filter((name) => !resource.fields[name]?.ref);
}

function refFields(resource: Resource): string[] {
  return resource.namedUrl!.filter((name) => resource.fields[name]?.ref);
}

/**
 * The named URL of a row as a path segment, or null when the resource has none or a value is
 * missing. Each value is encoded as AWX encodes it (";/?:@=&[]" percent-encoded, "+" as "[+]"), and
 * so is whatever a URL may not hold raw (a space, "#", "%"), which AWX leaves as it is.
 */
export function namedUrlKey(resource: Resource, row: ResourceRow, refs: Refs): string | null {
  if (!resource.namedUrl) return null;
  const own: string[] = [];
  for (const name of ownFields(resource)) {
    const value = row[resource.fields[name]?.column ?? name];
    if (value === null || value === undefined) return null;
    own.push(encodeValue(String(value)));
  }
  const nodes = [own.join(FIELD_SEPARATOR)];
  for (const name of refFields(resource)) {
    const field = resource.fields[name];
    const id = row[field.column];
    if (id === null || id === undefined) {
      nodes.push('');
      continue;
    }
    const target = refs.get(field.ref!, id);
    const key = target ? namedUrlKey(refs.resource(field.ref!), target, refs) : null;
    if (key === null) return null;
    nodes.push(key);
  }
  return nodes.join(NODE_SEPARATOR);
}

// What RFC 3986 lets a path segment hold raw, less the delimiters AWX encodes.
const KEPT = /[A-Za-z0-9\-._~!$'()*,]/;

function encodeValue(value: string): string {
  let out = '';
  for (const char of value) out += char === FIELD_SEPARATOR ? ESCAPED_PLUS : KEPT.test(char) ? char : encodeURIComponent(char);
  return out;
}

/** A named URL taken apart, each node with its own values and, per reference, its node or null. */
interface ParsedNode {
  resource: Resource;
  values: string[];
  refs: Array<ParsedNode | null>;
}

const PLUS_MARK = '\uE000';

function parseNode(resources: ResourceSet, resource: Resource, parts: string[], start: number): { node: ParsedNode; next: number } | null {
  if (!resource.namedUrl || start >= parts.length) return null;
  const own = ownFields(resource);
  const values = parts[start].split(FIELD_SEPARATOR).map((v) => v.replaceAll(PLUS_MARK, FIELD_SEPARATOR));
  if (values.length !== own.length) return null;
  let next = start + 1;
  const refs: Array<ParsedNode | null> = [];
  for (const name of refFields(resource)) {
    if (next >= parts.length) return null;
    if (parts[next] === '') {
      refs.push(null);
      next += 1;
      continue;
    }
    const parsed = parseNode(resources, resources.get(resource.fields[name].ref!), parts, next);
    if (!parsed) return null;
    refs.push(parsed.node);
    next = parsed.next;
  }
  return { node: { resource, values, refs }, next };
}

/**
 * SQL condition over `alias` selecting the rows a parsed node names. An empty part puts no
 * condition on its reference, as AWX's named URL graph reads it (populate_named_url_query_kwargs
 * skips it): `Cred++Machine+ssh++` names such a credential with or without an organization.
 */
function nodeCondition(node: ParsedNode, alias: string, params: Params, depth: number): string {
  const { resource } = node;
  const conditions = ownFields(resource).map(
    (name, i) => `${alias}.${ident(resource.fields[name]?.column ?? name)}::text = ${params.add(node.values[i])}`,
  );
  refFields(resource).forEach((name, i) => {
    const field = resource.fields[name];
    const sub = node.refs[i];
    const column = `${alias}.${ident(field.column)}`;
    if (!sub) return;
    const inner = `n${depth + 1}`;
    conditions.push(`${column} IN (SELECT ${inner}.id FROM ${ident(sub.resource.table)} ${inner} WHERE ${nodeCondition(sub, inner, params, depth + 1)})`);
  });
  return conditions.join(' AND ');
}

/** Resolves a named URL (already percent-decoded) to an id; null when it names nothing or is malformed. */
async function resolveNamed(db: Queryable, resources: ResourceSet, resource: Resource, key: string): Promise<number | null> {
  const parts = key.replaceAll(ESCAPED_PLUS, PLUS_MARK).split(NODE_SEPARATOR);
  const parsed = parseNode(resources, resource, parts, 0);
  if (!parsed || parsed.next !== parts.length) return null;
  const params = new Params();
  const where = nodeCondition(parsed.node, 'n0', params, 0);
  // AWX answers the first match; an object without the reference an empty part leaves out comes first.
  const emptyFirst = refFields(resource)
    .filter((_, i) => !parsed.node.refs[i])
    .map((name) => `n0.${ident(resource.fields[name].column)} IS NOT NULL, `)
    .join('');
  const rows = await db.query<{ id: number }>(`SELECT n0.id FROM ${ident(resource.table)} n0 WHERE ${where || 'true'} ORDER BY ${emptyFirst}n0.id LIMIT 1`, params.values);
  return rows[0]?.id ?? null;
}

const MAX_ID = 2_147_483_647;

/**
 * An id, or a named URL. A number is an id first; unlike AWX, a number that is no id is then tried
 * as a name, so an object named "2024" stays reachable by its named URL. `resources` resolve the
 * references a named URL goes through.
 */
export async function resolveKey(db: Queryable, resources: ResourceSet, resource: Resource, key: string): Promise<number | null> {
  if (/^\d+$/.test(key)) {
    const id = Number(key);
    if (id > MAX_ID) return null;
    const rows = await db.query(`SELECT id FROM ${ident(resource.table)} WHERE id = $1`, [id]);
    if (rows.length) return id;
  }
  return resolveNamed(db, resources, resource, key);
}

/** resolveKey, or 404: an unknown id with AWX's Allow header, an unknown name without it (as AWX). */
export async function resolveKeyOr404(db: Queryable, resources: ResourceSet, resource: Resource, key: string): Promise<number> {
  const id = await resolveKey(db, resources, resource, key);
  if (id !== null) return id;
  throw /^\d+$/.test(key) ? notFound() : new UnknownNamedUrl();
}

/** The row an id or a named URL names (an id first, as resolveKey), 404 as resolveKeyOr404 when none. */
export async function loadByKeyOr404<R extends ResourceRow = ResourceRow>(db: Queryable, resources: ResourceSet, resource: Resource, key: string): Promise<R> {
  const table = ident(resource.table);
  if (/^\d+$/.test(key) && Number(key) <= MAX_ID) {
    // One query for the usual case: the id names a row, which is the answer.
    const [row] = await db.query<R>(`SELECT * FROM ${table} WHERE id = $1`, [Number(key)]);
    if (row) return row;
  }
  const id = await resolveKeyOr404(db, resources, resource, key);
  const [row] = await db.query<R>(`SELECT * FROM ${table} WHERE id = $1`, [id]);
  if (!row) throw notFound();
  return row;
}
