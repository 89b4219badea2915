import { PgError, isDatabase, pgErrorCode, type Queryable, type Row, type ResourceRow } from '../db/database.ts';
import type { RequestContext } from './context.ts';
import { badRequest } from './errors.ts';
import { buildFilters, buildOrdering, filterTargets } from './filters.ts';
import { envelope, readPage, type ListEnvelope } from './pagination.ts';
import type { Resource } from './resource.ts';
import { serializeRows } from './serialize.ts';
import { ident, Params } from './sql.ts';

export type Query = Record<string, string | string[] | undefined>;

/** Extra condition narrowing a list (the members of one team, the records of one object). */
export type Scope = (alias: string, params: Params) => string;

const DEFAULT_QUERY_TIMEOUT_SECONDS = 5;

/**
 * Runs the queries of one list request, each stopped past LIST_QUERY_TIMEOUT, so that a filter
 * that turns out expensive ends with a 400 instead of holding a connection (on the embedded
 * database, the one connection) for long. Inside a transaction they run as they are.
 */
async function runListQueries(db: Queryable, ctx: RequestContext, queries: readonly { sql: string; params: readonly unknown[] }[]): Promise<Row[][]> {
  if (!isDatabase(db)) return Promise.all(queries.map(({ sql, params }) => db.query(sql, params)));
  const seconds = Number(ctx.service.settings.get('LIST_QUERY_TIMEOUT') ?? DEFAULT_QUERY_TIMEOUT_SECONDS);
  const run = ({ sql, params }: { sql: string; params: readonly unknown[] }) => db.queryWithTimeout(sql, params, seconds * 1000);
  try {
    if (db.kind === 'server') return await Promise.all(queries.map(run));
    // The embedded database runs one statement at a time anyway: the next is not started once one ran out of time.
    const results: Row[][] = [];
    for (const query of queries) results.push(await run(query));
    return results;
  } catch (err) {
    if (pgErrorCode(err) === PgError.queryCanceled) throw badRequest(`The filter took too long (over ${seconds} second${seconds === 1 ? '' : 's'}); make it simpler.`);
    throw err;
  }
}

/** FROM ... WHERE and ORDER BY of a list as the caller may see it, with filters and search applied. */
async function listQuery(db: Queryable, ctx: RequestContext, resource: Resource, query: Query, scope?: Scope, defaultOrder?: Scope) {
  const alias = 't';
  const params = new Params();
  const where: string[] = [];
  await resource.access.prepare?.(ctx, db);
  for (const target of filterTargets(ctx.service.resources, resource, query)) if (target !== resource) await target.access.prepare?.(ctx, db);
  const visible = resource.access.visible(ctx, alias, params);
  if (visible) where.push(visible);
  if (scope) where.push(scope(alias, params));
  where.push(...buildFilters(ctx, ctx.service.resources, resource, alias, query, params));
  for (const [key, condition] of Object.entries(resource.queryFilters)) {
    const value = [query[key]].flat().pop();
    if (value) where.push(condition(value, alias, params, ctx));
  }
  // The count leaves out the ordering, and so the parameters only the ordering uses (they come last).
  const countParams = [...params.values];
  const orderBy = query.order_by ?? query.order;
  const order = !orderBy && defaultOrder
    ? `${defaultOrder(alias, params)}, ${alias}.id ASC`
    : buildOrdering(ctx, resource, alias, Array.isArray(orderBy) ? orderBy[orderBy.length - 1] : orderBy, params);
  const from = `FROM ${ident(resource.table)} ${alias}${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  return { alias, params, countParams, from, order };
}

/**
 * One page of a resource's list as the caller may see it: visibility, filters, search and
 * ordering all run in SQL, so counts and pages agree with what the caller may read. `defaultOrder`
 * replaces the resource's ordering when the query asks none (an ordered related list).
 */
export async function listPage(
  db: Queryable,
  ctx: RequestContext,
  resource: Resource,
  path: string,
  query: Query,
  scope?: Scope,
  defaultOrder?: Scope,
): Promise<ListEnvelope<Row> | { results: Row[] }> {
  const { alias, params, countParams, from, order } = await listQuery(db, ctx, resource, query, scope, defaultOrder);
  const page = readPage(query);
  const offset = (page.page - 1) * page.size;
  // Past the first page, the page's ids are picked first (an index-only scan skips the offset
  // without reading the rows it skips), then only those rows are read, in the same order.
  const pageSql =
    offset === 0
      ? `SELECT ${alias}.* ${from} ORDER BY ${order} LIMIT ${page.size} OFFSET 0`
      : `SELECT ${alias}.* FROM ${ident(resource.table)} ${alias} WHERE ${alias}.id IN ` +
        `(SELECT ${alias}.id ${from} ORDER BY ${order} LIMIT ${page.size} OFFSET ${offset}) ORDER BY ${order}`;
  // ?count_disabled=1: the page alone, without counting (AWX answers only `results`).
  if ([query.count_disabled].flat().pop()) {
    const [rows] = await runListQueries(db, ctx, [{ sql: pageSql, params: params.values }]);
    return { results: await serializeRows(db, ctx, resource, rows as ResourceRow[]) };
  }
  const [[counted], rows] = await runListQueries(db, ctx, [
    { sql: `SELECT count(*)::int AS count ${from}`, params: countParams },
    { sql: pageSql, params: params.values },
  ]);
  const body = envelope(path, query, page, counted!.count as number, rows);
  return { ...body, results: await serializeRows(db, ctx, resource, rows as ResourceRow[]) };
}

/**
 * Every row of a list the caller may see, filtered and ordered as listPage would, without
 * pagination: at most `limit` rows, as stored (not serialized). For downloads (?format=csv).
 */
export async function listAll(db: Queryable, ctx: RequestContext, resource: Resource, query: Query, limit: number, scope?: Scope): Promise<ResourceRow[]> {
  const { alias, params, from, order } = await listQuery(db, ctx, resource, query, scope);
  const [rows] = await runListQueries(db, ctx, [{ sql: `SELECT ${alias}.* ${from} ORDER BY ${order} LIMIT ${Math.max(0, Math.floor(limit))}`, params: params.values }]);
  // Rows of the resource's own table (SELECT alias.*).
  return rows as ResourceRow[];
}

/**
 * FROM ... WHERE of a list as the caller may see it with `query`'s filters, and its parameters:
 * for aggregates over what the caller may see (counts, the dashboard's graph).
 */
export async function visibleFrom(db: Queryable, ctx: RequestContext, resource: Resource, query: Query): Promise<{ alias: string; from: string; params: unknown[] }> {
  const { alias, from, countParams } = await listQuery(db, ctx, resource, query);
  return { alias, from, params: countParams };
}

/** How many objects of a list the caller may see with `query`'s filters. */
export async function countVisible(db: Queryable, ctx: RequestContext, resource: Resource, query: Query = {}): Promise<number> {
  const { from, params } = await visibleFrom(db, ctx, resource, query);
  const [{ count }] = await db.query<{ count: number }>(`SELECT count(*)::int AS count ${from}`, params);
  return count;
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
