import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../api/errors.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { actionRouteSchemas } from '../../api/action-schemas.ts';
import { serializeRow } from '../../api/serialize.ts';
import { updateOptions, viewOptions } from '../../api/options.ts';
import type { Row } from '../../db/database.ts';
import type { InventorySourceRow } from '../../db/tables.ts';
import { objectPermission } from '../../api/permissions.ts';
import { mayUpdateInventory } from './inventory-source-access.ts';
import { canUpdateSource } from '../../run-kinds/inventory-update/queue.ts';
import { launchOrRefuse } from '../../runs/launch.ts';
import type { RunServices, RunRouteModule } from '../../runs/run-services.ts';

/** Queues an update of one source (locked) and answers it as AWX's update views do: {inventory_update, ...detail}. */
async function startUpdate(services: RunServices, request: FastifyRequest, source: Row): Promise<Row> {
  const { db } = services;
  const kind = services.runKinds.updateKindOf('inventory_id');
  const update = (await launchOrRefuse(services.launches, request.ctx, services.runKinds.launcher(kind.name, 'manual'), source, null)).run;
  return { [kind.name]: update.id, ...(await serializeRow(db, request.ctx, services.resources.get(kind.name), update)) };
}

export const inventorySourceRoutes: RunRouteModule = (app, services) => {
  const { db } = services;
  routeMethods(app, '/api/v2/inventory_sources/:id/update/', objectPermission('inventory_source', { POST: 'update' }), {
    GET: async (request) => {
      const source = request.object as InventorySourceRow;
      return { can_update: canUpdateSource(source) && (await mayUpdateInventory(request.ctx, db, source.inventory_id)) };
    },
    POST: async (request, reply) => {
      const source = request.object as InventorySourceRow;
      if (!canUpdateSource(source)) {
        reply.header('Allow', 'GET, HEAD, OPTIONS');
        throw new ApiError(405, { detail: 'Method "POST" not allowed.' });
      }
      const body = await startUpdate(services, request, source);
      return reply.code(202).header('Location', body.url).send(body);
    },
    OPTIONS: async () => updateOptions('Inventory Source Update', 'GET: whether the source can be updated. POST: starts an inventory update.'),
  }, actionRouteSchemas('can_update', 'Start an inventory update', 202));

  const sourcesOf = (inventoryId: number) => db.query<InventorySourceRow>(`SELECT * FROM inventory_sources WHERE inventory_id = $1 ORDER BY id`, [inventoryId]);
  routeMethods(app, '/api/v2/inventories/:id/update_inventory_sources/', objectPermission('inventory', { POST: 'update' }), {
    GET: async (request) => {
      const inventory = request.object;
      const allowed = await mayUpdateInventory(request.ctx, db, inventory.id);
      return (await sourcesOf(inventory.id)).map((s) => ({ inventory_source: s.id, can_update: allowed && canUpdateSource(s) }));
    },
    POST: async (request, reply) => {
      const inventory = request.object;
      const results: Row[] = [];
      let started = 0;
      for (const source of await sourcesOf(inventory.id)) {
        if (!canUpdateSource(source)) {
          results.push({ inventory_source: source.id, status: 'Could not start because `can_update` returned False' });
          continue;
        }
        results.push({ ...(await startUpdate(services, request, source)), inventory_source: source.id, status: 'started' });
        started++;
      }
      // As AWX: 200 when all started, 202 when some did, 400 when none could.
      if (!results.length) throw new ApiError(400, { detail: 'No inventory sources to update.' });
      return reply.code(started === results.length ? 200 : started ? 202 : 400).send(results);
    },
    OPTIONS: async () => viewOptions('Inventory Inventory Sources Update', 'GET: which sources of the inventory can be updated. POST: updates every one that can.'),
  });
};
