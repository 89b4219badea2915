import { readTogether, sqlIntegers, type Queryable, type Row, type ResourceRow } from '../db/database.ts';
import type { RequestContext, ResourceSet } from './context.ts';
import { revealedSecrets } from './fields.ts';
import { namedUrlKey } from './named-url.ts';
import type { Resource, SerializedObject } from './resource.ts';
import { ident } from './sql.ts';

const USER_SUMMARY = ['id', 'username', 'first_name', 'last_name'];

/** Rows of referenced objects, loaded in one query per resource for a whole page. */
class RefCache {
  private readonly rows = new Map<string, Map<number, ResourceRow>>();

  constructor(private readonly db: Queryable, private readonly resources: ResourceSet) {}

  resource(name: string): Resource {
    return this.resources.get(name);
  }

  get(resource: string, id: unknown): ResourceRow | undefined {
    return typeof id === 'number' ? this.rows.get(resource)?.get(id) : undefined;
  }

  /**
   * Loads the objects that `rows` reference, and, for named URLs, what those reference in turn:
   * one round trip for each level, whatever the number of resources.
   */
  async load(resource: Resource, rows: ResourceRow[]): Promise<void> {
    let level: { resource: Resource; rows: ResourceRow[] }[] = [{ resource, rows }];
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
      const targets = [...wanted.keys()].map((name) => this.resources.get(name));
      const loaded = await this.db.queryMany(
        targets.map((target) => `SELECT * FROM ${ident(target.table)} WHERE id = ANY(${sqlIntegers([...wanted.get(target.name)!])})`),
      );
      level = [];
      targets.forEach((target, i) => {
        const map = this.rows.get(target.name) ?? new Map<number, ResourceRow>();
        for (const row of loaded[i] as ResourceRow[]) map.set(row.id, row);
        this.rows.set(target.name, map);
        if (target.namedUrl?.some((field) => target.fields[field]?.ref)) level.push({ resource: target, rows: loaded[i] as ResourceRow[] });
      });
    }
  }
}

export function summaryOf(target: Resource, row: ResourceRow): Row {
  const columns = target.name === 'user' ? USER_SUMMARY : target.summaryColumns;
  return Object.fromEntries(columns.filter((c) => c in row).map((c) => [c, row[c]]));
}

async function loadObjectRoles(db: Queryable, resource: Resource, rows: ResourceRow[]): Promise<Map<number, Row>> {
  const byObject = new Map<number, Row>();
  if (!Object.keys(resource.roles).length || !rows.length) return byObject;
  const roles = await db.query<{ id: number; role_field: string; object_id: number }>(
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

/**
 * Rows of a list mixing kinds (unified jobs, unified job templates), each serialized as its own
 * kind's resource would (AWX's UnifiedJobListSerializer picks the serializer per row): the rows
 * of one kind are read from that kind's table and serialized together, one batch per kind.
 */
async function serializeMixedRows(db: Queryable, ctx: RequestContext, resource: Resource, rows: ResourceRow[]): Promise<SerializedObject[]> {
  const out: SerializedObject[] = new Array(rows.length);
  const byKind = new Map<Resource, number[]>();
  const plain: number[] = [];
  rows.forEach((row, index) => {
    const own = ctx.service.resources.find(String(row[resource.typeColumn!]));
    if (!own || own === resource) return plain.push(index);
    if (!byKind.has(own)) byKind.set(own, []);
    byKind.get(own)!.push(index);
  });
  for (const [own, indexes] of byKind) {
    const loaded = await db.query<ResourceRow>(`SELECT * FROM ${ident(own.table)} WHERE id = ANY($1::integer[])`, [indexes.map((i) => rows[i].id)]);
    const byId = new Map(loaded.map((row) => [row.id, row]));
    const found = indexes.filter((i) => byId.has(rows[i].id));
    const serialized = await serializeRows(db, ctx, own, found.map((i) => byId.get(rows[i].id)!));
    found.forEach((i, n) => (out[i] = serialized[n]));
    plain.push(...indexes.filter((i) => !byId.has(rows[i].id)));
  }
  if (plain.length) {
    const serialized = await serializeOwnRows(db, ctx, resource, plain.map((i) => rows[i]));
    plain.forEach((i, n) => (out[i] = serialized[n]));
  }
  return out;
}

/** Turns database rows into API objects: id, type, url, related, summary_fields, created, modified, then fields. */
export async function serializeRows(db: Queryable, ctx: RequestContext, resource: Resource, rows: ResourceRow[]): Promise<SerializedObject[]> {
  return resource.typeColumn ? serializeMixedRows(db, ctx, resource, rows) : serializeOwnRows(db, ctx, resource, rows);
}

async function serializeOwnRows(db: Queryable, ctx: RequestContext, resource: Resource, rows: ResourceRow[]): Promise<SerializedObject[]> {
  const refs = new RefCache(db, ctx.service.resources);
  const [, objectRoles, prepared, allCapabilities] = await readTogether(db, [
    () => refs.load(resource, rows),
    () => loadObjectRoles(db, resource, rows),
    async () => (resource.prepare && rows.length ? resource.prepare(db, rows, ctx) : undefined),
    () => Promise.all(rows.map((row) => capabilities(db, ctx, resource, row, rows))),
  ] as const);
  return rows.map(
    (row, index) => {
      const related: Record<string, string> = {};
      const summary: Row = {};
      for (const [name, field] of Object.entries(resource.allFields)) {
        if (!field.ref) continue;
        const id = row[field.column];
        // A reference column holds an id or null.
        if (typeof id !== 'number') continue;
        const target = ctx.service.resources.get(field.ref);
        related[name] = target.detailPath(id);
        const targetRow = refs.get(field.ref, id);
        if (targetRow) summary[name] = summaryOf(target, targetRow);
      }
      const key = namedUrlKey(resource, row, refs);
      if (key !== null) related.named_url = `${resource.listPath}${key}/`;
      for (const [name, relation] of Object.entries(resource.related)) related[name] = `${resource.detailPath(row.id)}${relation.segment ?? name}/`;
      if (resource.allFields.created) related.activity_stream = `${resource.detailPath(row.id)}activity_stream/`;
      const roles = objectRoles.get(row.id);
      if (roles) summary.object_roles = roles;
      // Who holds the object's roles (access-list-routes.ts answers it for every resource with roles).
      if (resource.topLevel && (Object.keys(resource.roles).length || resource.name === 'user')) related.access_list = `${resource.detailPath(row.id)}access_list/`;
      summary.user_capabilities = allCapabilities[index];
      const own = resource.typeColumn ? ctx.service.resources.find(String(row[resource.typeColumn])) ?? resource : resource;
      const out: SerializedObject = {
        id: row.id,
        type: own.name,
        url: own.detailPath(row.id),
        related,
        summary_fields: summary,
      };
      if (resource.allFields.created) out.created = resource.allFields.created.serialize(row.created);
      if (resource.allFields.modified) out.modified = resource.allFields.modified.serialize(row.modified);
      // Generated credentials (tokens, client secrets) show in full only in their create response.
      const shown = revealedSecrets(row);
      for (const [name, field] of Object.entries(resource.fields)) out[name] = shown?.[name] ?? field.serialize(row[field.column]);
      resource.decorate?.(row, out, prepared);
      return out;
    },
  );
}

/** The order AWX lists capabilities in. */
const CAPABILITY_ORDER = ['edit', 'delete', 'start', 'schedule', 'copy', 'adhoc', 'unattach', 'use'];

/**
 * What the caller may do with one row of `page` (summary_fields.user_capabilities): edit and
 * delete from the policy's canChange and canDelete, then the policy's own capabilities, in AWX's
 * order. A read-scoped token may do nothing. Checks given the page look it up once for all rows.
 */
async function capabilities(db: Queryable, ctx: RequestContext, resource: Resource, row: ResourceRow, page: readonly ResourceRow[]): Promise<Row> {
  const caps: Record<string, boolean> = {};
  const writable = ctx.tokenScope !== 'read';
  const { access } = resource;
  const declared = access.capabilities ?? {};
  const { edit, delete: del } = declared;
  if (resource.operations.update && edit !== false) caps.edit = writable && (await (typeof edit === 'function' ? edit(ctx, db, row, page) : access.canChange(ctx, db, row, {}, page)));
  if (resource.operations.delete && del !== false) caps.delete = writable && (await (typeof del === 'function' ? del(ctx, db, row, page) : access.canDelete(ctx, db, row, page)));
  for (const [name, check] of Object.entries(declared)) {
    if (check === false || name === 'edit' || name === 'delete') continue;
    caps[name] = typeof check === 'string' ? caps[check] === true : writable && (await check(ctx, db, row, page));
  }
  const ordered: Row = {};
  for (const name of [...CAPABILITY_ORDER, ...Object.keys(caps)]) if (name in caps && !(name in ordered)) ordered[name] = caps[name];
  return ordered;
}

export async function serializeRow(db: Queryable, ctx: RequestContext, resource: Resource, row: ResourceRow): Promise<SerializedObject> {
  return (await serializeRows(db, ctx, resource, [row]))[0];
}
