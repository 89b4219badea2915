import type { Queryable } from '../../db/database.ts';
import type { InventoryRow } from '../../db/tables.ts';

/** The source fields a constructed inventory shows and sets as its own (AWX's CONSTRUCTED_INVENTORY_SOURCE_EDITABLE_FIELDS). */
export const CONSTRUCTED_SOURCE_FIELDS = ['source_vars', 'update_cache_timeout', 'limit', 'verbosity'] as const;

/**
 * A constructed inventory always has exactly one source, of kind `constructed`, made with it
 * (AWX's _enforce_constructed_source): it overwrites hosts, groups and variables and updates
 * whenever a job is launched on the inventory.
 */
export async function ensureConstructedSource(tx: Queryable, inventory: Pick<InventoryRow, 'id' | 'name' | 'created_by_id'>): Promise<void> {
  const [held] = await tx.query('SELECT 1 FROM inventory_sources WHERE inventory_id = $1 LIMIT 1', [inventory.id]);
  if (held) return;
  await tx.query(
    `INSERT INTO inventory_sources (name, inventory_id, source, overwrite, overwrite_vars, update_on_launch, created_by_id, modified_by_id)
     VALUES ($1, $2, 'constructed', true, true, true, $3, $3)`,
    [`Auto-created source for: ${inventory.name}`.slice(0, 512), inventory.id, inventory.created_by_id],
  );
}
