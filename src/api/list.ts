import type { Queryable, Row } from '../db/database.ts';
import type { RequestContext } from './context.ts';
import { buildFilters, buildOrdering } from './filters.ts';
import { envelope, readPage, type ListEnvelope } from './pagination.ts';
import type { Resource } from './resource.ts';
import { serializeRows } from './serialize.ts';
import { ident, Params } from './sql.ts';

export type Query = Record<string, string | string[] | undefined>;

/** Extra condition narrowing a list (the members of one team, the records of one object). */
export type Scope = (alias: string, params: Params) => string;

/** FROM ... WHERE and ORDER BY of a list as the caller may see it, with filters and search applied. */
async function listQuery(db: Queryable, ctx: RequestContext, resource: Resource, query: Query, scope?: Scope) {
  const alias = 't';
  const params = new Params();
  const where: string[] = [];
  await resource.access.prepare?.(ctx, db);
  const visible = resource.access.visible(ctx, alias, params);
  if (visible) where.push(visible);
  if (scope) where.push(scope(alias, params));
  where.push(...buildFilters(resource, alias, query, params));
  const orderBy = query.order_by ?? query.order;
  const order = buildOrdering(resource, alias, Array.isArray(orderBy) ? orderBy[orderBy.length - 1] : orderBy);
  const from = `FROM ${ident(resource.table)} ${alias}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  return { alias, params, from, order };
}

/**
 * One page of a resource's list as the caller may see it: visibility, filters, search and
 * ordering all run in SQL, so counts and pages agree with what the caller may read.
 */
export async function listPage(
  db: Queryable,
  ctx: RequestContext,
  resource: Resource,
  path: string,
  query: Query,
  scope?: Scope,
): Promise<ListEnvelope<Row>> {
  const { alias, params, from, order } = await listQuery(db, ctx, resource, query, scope);
  const page = readPage(query);
  const offset = (page.page - 1) * page.size;
  // Past the first page, the page's ids are picked first (an index-only scan skips the offset
  // without reading the rows it skips), then only those rows are read, in the same order.
  const pageSql =
    offset === 0
      ? `SELECT ${alias}.* ${from} ORDER BY ${order} LIMIT ${page.size} OFFSET 0`
      : `SELECT ${alias}.* FROM ${ident(resource.table)} ${alias} WHERE ${alias}.id IN ` +
        `(SELECT ${alias}.id ${from} ORDER BY ${order} LIMIT ${page.size} OFFSET ${offset}) ORDER BY ${order}`;
  const [[{ count }], rows] = await Promise.all([
    db.query<{ count: number }>(`SELECT count(*)::int AS count ${from}`, params.values),
    db.query(pageSql, params.values),
  ]);
  const body = envelope(path, query, page, count, rows);
  return { ...body, results: await serializeRows(db, ctx, resource, rows) };
}

/**
 * Every row of a list the caller may see, filtered and ordered as listPage would, without
 * pagination: at most `limit` rows, as stored (not serialized). For downloads (?format=csv).
 */
export async function listAll(db: Queryable, ctx: RequestContext, resource: Resource, query: Query, limit: number, scope?: Scope): Promise<Row[]> {
  const { alias, params, from, order } = await listQuery(db, ctx, resource, query, scope);
  return db.query(`SELECT ${alias}.* ${from} ORDER BY ${order} LIMIT ${Math.max(0, Math.floor(limit))}`, params.values);
}

/** Whether the caller may see the object with this id. */
export async function isVisible(db: Queryable, ctx: RequestContext, resource: Resource, id: number): Promise<boolean> {
  const params = new Params();
  await resource.access.prepare?.(ctx, db);
  const visible = resource.access.visible(ctx, 't', params);
  if (!visible) return true;
  const rows = await db.query(`SELECT 1 FROM ${ident(resource.table)} t WHERE t.id = ${params.add(id)} AND ${visible}`, params.values);
  return rows.length > 0;
}
