import type { RouteModule } from '../../api/extra-routes.ts';
import { createObject, deleteObject, loadRow, parseRequestBody, updateObject, type WriteMode } from '../../api/crud.ts';
import { notFound } from '../../api/errors.ts';
import { resourceRouteSchemas } from '../../api/field-schemas.ts';
import { listPage, type Query } from '../../api/list.ts';
import { detailOptions, listOptions } from '../../api/options.ts';
import { objectPermission, resourcePermission } from '../../api/permissions.ts';
import { routeMethods, type ObjectRequest } from '../../api/resource-routes.ts';
import type { RequestContext } from '../../api/context.ts';
import type { SerializedObject, Values } from '../../api/resource.ts';
import { checkedBody } from '../../api/route-schemas.ts';
import { serializeRows } from '../../api/serialize.ts';
import type { Queryable, Row } from '../../db/database.ts';
import type { InventoryRow, InventorySourceRow } from '../../db/tables.ts';
import { CONSTRUCTED_SOURCE_FIELDS } from './constructed-source.ts';
import { constructedInventoryShape } from './constructed-inventory-shape.ts';

/** The values for the inventory, and those for its source (null taken as not given, as AWX). */
function split(values: Values): { inventory: Values; source: Values } {
  const inventory: Values = { ...values };
  const source: Values = {};
  for (const field of CONSTRUCTED_SOURCE_FIELDS) {
    if (!(field in inventory)) continue;
    const value = inventory[field];
    delete inventory[field];
    if (value !== null && value !== undefined) source[field] = value;
  }
  return { inventory, source };
}

const constructedSourceOf = async (db: Queryable, inventoryId: number) =>
  (await db.query<InventorySourceRow>("SELECT * FROM inventory_sources WHERE inventory_id = $1 AND source = 'constructed' ORDER BY id LIMIT 1", [inventoryId]))[0];

/**
 * /api/v2/constructed_inventories/: inventories of kind `constructed` (AWX's ConstructedInventoryList
 * and ConstructedInventoryDetail), each shown with source_vars, update_cache_timeout, limit and
 * verbosity of its auto-created source, which a write sets in the same transaction.
 */
export const constructedInventoryRoutes: RouteModule = (app, services) => {
  const { db } = services;
  const inventories = services.resources.get('inventory');
  const sources = services.resources.get('inventory_source');
  const shape = constructedInventoryShape(inventories);
  const schemas = resourceRouteSchemas(shape);
  const onlyConstructed = (alias: string) => `${alias}.kind = 'constructed'`;

  async function shown(ctx: RequestContext, rows: readonly Row[]): Promise<SerializedObject[]> {
    if (!rows.length) return [];
    const ids = rows.map((r) => r.id as number);
    const held = await db.query<InventorySourceRow>(
      "SELECT DISTINCT ON (inventory_id) * FROM inventory_sources WHERE inventory_id = ANY($1::integer[]) AND source = 'constructed' ORDER BY inventory_id, id",
      [ids],
    );
    const byInventory = new Map(held.map((s) => [s.inventory_id, s]));
    return rows.map((row) => {
      const out = { ...row } as SerializedObject;
      const source = byInventory.get(out.id);
      delete out.host_filter;
      out.url = shape.detailPath(out.id);
      for (const field of CONSTRUCTED_SOURCE_FIELDS) out[field] = source ? sources.fields[field].serialize(source[field]) : null;
      return out;
    });
  }
  const serialized = async (ctx: RequestContext, row: InventoryRow) =>
    (await shown(ctx, await serializeRows(db, ctx, inventories, [row])))[0];

  async function write(tx: Queryable, ctx: RequestContext, values: Values, existing: InventoryRow | null): Promise<InventoryRow> {
    const { inventory, source } = split(values);
    const row = existing
      ? await updateObject<InventoryRow>(tx, ctx, inventories, await loadRow(tx, inventories, existing.id, true), inventory)
      : await createObject<InventoryRow>(tx, ctx, inventories, { ...inventory, kind: 'constructed' });
    if (Object.keys(source).length) await updateObject(tx, ctx, sources, await constructedSourceOf(tx, row.id), source);
    return row;
  }

  const list = shape.listPath;
  routeMethods(app, list, resourcePermission('inventory', 'crud'), {
    GET: async (request) => {
      const page = await listPage(db, request.ctx, inventories, list, request.query as Query, onlyConstructed);
      return { ...page, results: await shown(request.ctx, page.results) };
    },
    OPTIONS: async (request) => listOptions(services.resources, shape, request.ctx.tokenScope !== 'read' && (await inventories.access.canCreate(request.ctx, db, {}))),
    POST: async (request, reply) => {
      const { body, refused } = checkedBody(request);
      const values = await parseRequestBody(shape, body, 'create', null, (v) => inventories.access.canCreate(request.ctx, db, v), refused);
      const row = await db.transaction((tx) => write(tx, request.ctx, values, null));
      return reply.code(201).send(await serialized(request.ctx, row));
    },
  }, schemas.list);

  const constructed = (request: ObjectRequest<InventoryRow>) => {
    if (request.object.kind !== 'constructed') throw notFound();
    return request.object;
  };
  const update = (mode: WriteMode) => async (request: ObjectRequest<InventoryRow>) => {
    const existing = constructed(request);
    const { body, refused } = checkedBody(request);
    const values = await parseRequestBody(shape, body, mode, existing, (v) => inventories.access.canChange(request.ctx, db, existing, v), refused);
    const row = await db.transaction((tx) => write(tx, request.ctx, values, existing));
    return serialized(request.ctx, row);
  };
  routeMethods<InventoryRow>(app, `${list}:id/`, objectPermission('inventory', { PUT: 'edit', PATCH: 'edit', DELETE: 'edit' }), {
    GET: async (request) => serialized(request.ctx, constructed(request)),
    OPTIONS: async (request) => {
      const row = constructed(request);
      return detailOptions(services.resources, shape, request.ctx.tokenScope !== 'read' && (await inventories.access.canChange(request.ctx, db, row, {})));
    },
    PATCH: update('update'),
    PUT: update('replace'),
    DELETE: async (request, reply) => {
      const existing = constructed(request);
      await db.transaction(async (tx) => deleteObject(tx, request.ctx, inventories, await loadRow(tx, inventories, existing.id, true)));
      return reply.code(204).send();
    },
  }, schemas.detail);
};
