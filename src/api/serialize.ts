import { sqlIntegers, type Queryable, type Row } from '../db/database.ts';
import type { RequestContext } from './context.ts';
import { revealedSecrets } from './fields.ts';
import { findResource, getResource, type Resource } from './resource.ts';
import { ident } from './sql.ts';

const USER_SUMMARY = ['id', 'username', 'first_name', 'last_name'];

/** Rows of referenced objects, loaded in one query per resource for a whole page. */
class RefCache {
  private readonly rows = new Map<string, Map<number, Row>>();

  constructor(private readonly db: Queryable) {}

  get(resource: string, id: unknown): Row | undefined {
    return typeof id === 'number' ? this.rows.get(resource)?.get(id) : undefined;
  }

  /**
   * Loads the objects that `rows` reference, and, for named URLs, what those reference in turn:
   * one round trip for each level, whatever the number of resources.
   */
  async load(resource: Resource, rows: Row[]): Promise<void> {
    let level: { resource: Resource; rows: Row[] }[] = [{ resource, rows }];
    while (level.length) {
      const wanted = new Map<string, Set<number>>();
      for (const { resource: source, rows: sourceRows } of level) {
        for (const field of Object.values(source.allFields)) {
          if (!field.ref) continue;
          for (const row of sourceRows) {
            const id = row[field.column];
            if (typeof id === 'number' && !this.get(field.ref, id)) {
              if (!wanted.has(field.ref)) wanted.set(field.ref, new Set());
              wanted.get(field.ref)!.add(id);
            }
          }
        }
      }
      const targets = [...wanted.keys()].map((name) => getResource(name));
      const loaded = await this.db.queryMany(
        targets.map((target) => `SELECT * FROM ${ident(target.table)} WHERE id = ANY(${sqlIntegers([...wanted.get(target.name)!])})`),
      );
      level = [];
      targets.forEach((target, i) => {
        const map = this.rows.get(target.name) ?? new Map<number, Row>();
        for (const row of loaded[i]) map.set(row.id, row);
        this.rows.set(target.name, map);
        const last = target.namedUrl?.[target.namedUrl.length - 1];
        if (last && target.fields[last]?.ref) level.push({ resource: target, rows: loaded[i] });
      });
    }
  }
}

/** The named-URL key of a row (Ops++Default), or null when the resource has none or a part is missing. */
export function namedUrlKey(resource: Resource, row: Row, refs: { get(resource: string, id: unknown): Row | undefined }): string | null {
  if (!resource.namedUrl) return null;
  const parts: string[] = [];
  for (const name of resource.namedUrl) {
    const field = resource.fields[name];
    if (field?.ref) {
      const id = row[field.column];
      if (id === null || id === undefined) {
        parts.push('');
        continue;
      }
      const target = refs.get(field.ref, id);
      const key = target ? namedUrlKey(getResource(field.ref), target, refs) : null;
      if (key === null) return null;
      parts.push(key);
    } else {
      const value = row[field ? field.column : name];
      if (value === null || value === undefined) return null;
      parts.push(String(value));
    }
  }
  return parts.join('++');
}

/** Percent-encodes what a path segment may not hold, leaving the characters it may (@ : + & = ...) readable. */
function encodePathSegment(value: string): string {
  return encodeURIComponent(value).replace(/%(24|26|2B|2C|3A|3B|3D|40)/g, (escaped) => decodeURIComponent(escaped));
}

function summaryOf(target: Resource, row: Row): Row {
  const columns = target.name === 'user' ? USER_SUMMARY : target.summaryColumns;
  return Object.fromEntries(columns.filter((c) => c in row).map((c) => [c, row[c]]));
}

async function loadObjectRoles(db: Queryable, resource: Resource, rows: Row[]): Promise<Map<number, Row>> {
  const byObject = new Map<number, Row>();
  if (!Object.keys(resource.roles).length || !rows.length) return byObject;
  const roles = await db.query(
    'SELECT id, role_field, object_id FROM roles WHERE content_type = $1 AND object_id = ANY($2::integer[])',
    [resource.name, rows.map((r) => r.id)],
  );
  for (const role of roles) {
    const info = resource.roles[role.role_field];
    if (!info) continue;
    const entry = byObject.get(role.object_id) ?? {};
    entry[role.role_field] = { id: role.id, name: info.name, description: info.description };
    byObject.set(role.object_id, entry);
  }
  return byObject;
}

/** Turns database rows into API objects: id, type, url, related, summary_fields, created, modified, then fields. */
export async function serializeRows(db: Queryable, ctx: RequestContext, resource: Resource, rows: Row[]): Promise<Row[]> {
  const refs = new RefCache(db);
  await refs.load(resource, rows);
  const objectRoles = await loadObjectRoles(db, resource, rows);
  const prepared = resource.prepare && rows.length ? await resource.prepare(db, rows) : undefined;
  const allCapabilities = await Promise.all(rows.map((row) => capabilities(db, ctx, resource, row, rows)));
  return rows.map(
    (row, index) => {
      const related: Record<string, string> = {};
      const summary: Row = {};
      for (const [name, field] of Object.entries(resource.allFields)) {
        if (!field.ref) continue;
        const id = row[field.column];
        if (id === null || id === undefined) continue;
        const target = getResource(field.ref);
        related[name] = target.detailPath(id);
        const targetRow = refs.get(field.ref, id);
        if (targetRow) summary[name] = summaryOf(target, targetRow);
      }
      const key = namedUrlKey(resource, row, refs);
      if (key !== null) related.named_url = `${resource.listPath}${encodePathSegment(key)}/`;
      for (const name of Object.keys(resource.related)) related[name] = `${resource.detailPath(row.id)}${name}/`;
      if (resource.allFields.created) related.activity_stream = `${resource.detailPath(row.id)}activity_stream/`;
      const roles = objectRoles.get(row.id);
      if (roles) summary.object_roles = roles;
      summary.user_capabilities = allCapabilities[index];
      const own = resource.typeColumn ? findResource(row[resource.typeColumn]) ?? resource : resource;
      const out: Row = {
        id: row.id,
        type: own.name,
        url: own.detailPath(row.id),
        related,
        summary_fields: summary,
      };
      if (resource.allFields.created) {
        out.created = resource.allFields.created.serialize(row.created);
        out.modified = resource.allFields.modified.serialize(row.modified);
      }
      // Generated credentials (tokens, client secrets) show in full only in their create response.
      const shown = revealedSecrets(row);
      for (const [name, field] of Object.entries(resource.fields)) out[name] = shown?.[name] ?? field.serialize(row[field.column]);
      resource.decorate?.(row, out, prepared);
      return out;
    },
  );
}

/**
 * What the caller may do with one row of `page`. Answers at once when the policy does (a superuser
 * may do everything), so that only policies that need the database cost a turn per row; canDelete
 * is asked after canChange has answered, as before.
 */
function capabilities(db: Queryable, ctx: RequestContext, resource: Resource, row: Row, page: readonly Row[]): Row | Promise<Row> {
  const caps: Row = {};
  const writable = ctx.tokenScope !== 'read';
  const askDelete = (): Row | Promise<Row> => {
    if (!resource.operations.delete) return caps;
    const answer = writable && resource.access.canDelete(ctx, db, row, page);
    if (answer instanceof Promise) {
      return answer.then((allowed) => {
        caps.delete = allowed;
        return caps;
      });
    }
    caps.delete = answer;
    return caps;
  };
  if (!resource.operations.update) return askDelete();
  const answer = writable && resource.access.canChange(ctx, db, row, {}, page);
  if (answer instanceof Promise) {
    return answer.then((allowed) => {
      caps.edit = allowed;
      return askDelete();
    });
  }
  caps.edit = answer;
  return askDelete();
}

export async function serializeRow(db: Queryable, ctx: RequestContext, resource: Resource, row: Row): Promise<Row> {
  return (await serializeRows(db, ctx, resource, [row]))[0];
}
