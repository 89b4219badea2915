import type { RequestContext } from '../../api/context.ts';
import type { Queryable } from '../../db/database.ts';
import type { InventorySourceRow } from '../../db/tables.ts';
import { latestRuns, stale } from '../../runs/update-dependencies.ts';
import { canUpdateSource, queueInventoryUpdate } from './queue.ts';

/** The inventory updates each inventory needs before its jobs run (update_on_launch sources), creating them when due. */
export async function inventoryDependencies(tx: Queryable, system: RequestContext, inventoryIds: number[]): Promise<Map<number, number[]>> {
  const result = new Map<number, number[]>();
  const sources = await tx.query<InventorySourceRow>(`SELECT * FROM inventory_sources WHERE inventory_id = ANY($1::int[]) AND update_on_launch ORDER BY id`, [inventoryIds]);
  if (!sources.length) return result;
  const { active, finished } = await latestRuns(tx, 'inventory_update', sources.map((s) => s.id));
  for (const source of sources) {
    let dependency = active.get(source.id);
    if (!dependency && canUpdateSource(source) && stale(finished.get(source.id), source.update_cache_timeout)) {
      dependency = (await queueInventoryUpdate(tx, system, source, 'dependency')).id;
    }
    if (dependency) result.set(source.inventory_id, [...(result.get(source.inventory_id) ?? []), dependency]);
  }
  return result;
}
