import { ApiError, forbidden } from '../../api/errors.ts';
import { hasObjectRole } from '../../api/access.ts';
import { isVisible } from '../../api/list.ts';
import { orderedJoinTable, type Relation } from '../../api/relations.ts';
import type { Queryable } from '../../db/database.ts';
import { mayAdministerInventory } from './inventory-access.ts';

const kindOf = async (tx: Queryable, id: number) =>
  (await tx.query<{ kind: string }>('SELECT kind FROM inventories WHERE id = $1', [id]))[0]?.kind;

/**
 * inventories/{id}/input_inventories/: the inventories a constructed inventory reads, in the order
 * attached (AWX's InventoryInputInventoriesList). The caller administers the constructed inventory
 * and may use the input: AWX asks only to read it, which would let a reader run jobs on its hosts
 * through a constructed inventory of their own (docs/constructed-inventories.md). A constructed
 * inventory is never an input.
 */
export const inputInventories: Relation = {
  ...orderedJoinTable('inventory', 'inventory_input_inventories', 'constructed_inventory_id', 'input_inventory_id'),
  association: 'input_inventories',
  async authorize(ctx, tx, parentId, inputId, detach) {
    if (!(await mayAdministerInventory(ctx, tx, parentId))) throw forbidden();
    if (!(await isVisible(tx, ctx, ctx.service.resources.get('inventory'), inputId))) throw forbidden();
    if (detach) return;
    if (!(await hasObjectRole(ctx, tx, 'inventory', inputId, 'use_role'))) {
      throw new ApiError(403, { detail: 'You need the use role of an inventory to make it an input of a constructed inventory.' });
    }
    if ((await kindOf(tx, parentId)) !== 'constructed') throw new ApiError(400, { error: 'Only constructed inventories have input inventories.' });
    if ((await kindOf(tx, inputId)) === 'constructed') {
      throw new ApiError(400, { error: 'You cannot add a constructed inventory to another constructed inventory.' });
    }
  },
};

/** The input inventories of a constructed inventory, in their order. */
export async function inputInventoryIds(db: Queryable, constructedId: number): Promise<number[]> {
  const rows = await db.query<{ input_inventory_id: number }>(
    'SELECT input_inventory_id FROM inventory_input_inventories WHERE constructed_inventory_id = $1 ORDER BY position, input_inventory_id',
    [constructedId],
  );
  return rows.map((r) => r.input_inventory_id);
}
