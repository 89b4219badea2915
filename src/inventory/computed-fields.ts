import type { Queryable } from '../db/database.ts';
import type { InventoryRow } from '../db/tables.ts';

/** What refreshing a smart inventory reads of its row. */
type SmartInventory = Pick<InventoryRow, 'id' | 'kind' | 'host_filter' | 'organization_id'>;
import { pgErrorCode } from '../db/database.ts';
import { Params } from '../api/sql.ts';
import type { ResourceSet } from '../api/context.ts';
import { compileHostFilter, HostFilterError } from './host-filter.ts';

/**
 * The computed columns of inventories (total_hosts, hosts_with_active_failures, total_groups,
 * has_active_failures, the inventory source counts) and of their hosts (has_inventory_sources),
 * and which hosts smart inventories hold. Every change to hosts, groups or inventory sources calls
 * refreshInventoryComputedFields in its own transaction, so readers never see them stale. Each
 * refresh is a few set-based statements, whatever the number of hosts.
 */

const COMPUTED = ['total_hosts', 'hosts_with_active_failures', 'has_active_failures', 'total_groups', 'total_inventory_sources',
  'inventory_sources_with_failures', 'has_inventory_sources'] as const;

/** UPDATE of the computed columns from a one-row subquery `c` with the same column names, skipped when nothing changed. */
const UPDATE_COMPUTED = (counts: string) => `
  UPDATE inventories SET ${COMPUTED.map((col) => `${col} = c.${col}`).join(', ')}
  FROM (${counts}) AS c
  WHERE inventories.id = $1
    AND (${COMPUTED.map((col) => `inventories.${col}`).join(', ')}) IS DISTINCT FROM (${COMPUTED.map((col) => `c.${col}`).join(', ')})`;

const REGULAR_COUNTS = `
  SELECT h.total AS total_hosts, h.failed AS hosts_with_active_failures, h.failed > 0 AS has_active_failures,
         (SELECT count(*)::int FROM groups WHERE inventory_id = $1) AS total_groups,
         s.total AS total_inventory_sources, s.failed AS inventory_sources_with_failures, s.total > 0 AS has_inventory_sources
  FROM (SELECT count(*)::int AS total, (count(*) FILTER (WHERE has_active_failures))::int AS failed FROM hosts WHERE inventory_id = $1) AS h,
       (SELECT count(*)::int AS total, (count(*) FILTER (WHERE last_update_failed))::int AS failed FROM inventory_sources WHERE inventory_id = $1) AS s`;

const SMART_COUNTS = `
  SELECT h.total AS total_hosts, h.failed AS hosts_with_active_failures, h.failed > 0 AS has_active_failures,
         0 AS total_groups, 0 AS total_inventory_sources, 0 AS inventory_sources_with_failures, false AS has_inventory_sources
  FROM (SELECT count(*)::int AS total, (count(*) FILTER (WHERE hosts.has_active_failures))::int AS failed
        FROM smart_inventory_memberships m JOIN hosts ON hosts.id = m.host_id WHERE m.inventory_id = $1) AS h`;

/**
 * Recomputes every computed column of the inventory (and its hosts), then the smart inventories of
 * its organization. `tx` must be an open transaction (the caller's change and this refresh commit together);
 * `resources` resolve the paths of smart inventories' host filters.
 */
export async function refreshInventoryComputedFields(tx: Queryable, resources: ResourceSet, inventoryId: number): Promise<void> {
  const [inventory] = await tx.query<SmartInventory>('SELECT id, kind, host_filter, organization_id FROM inventories WHERE id = $1', [inventoryId]);
  if (!inventory) return;
  if (inventory.kind === 'smart') {
    await refreshSmartInventory(tx, resources, inventory);
    return;
  }
  await tx.query(
    `UPDATE hosts SET has_inventory_sources = NOT hosts.has_inventory_sources
     WHERE hosts.inventory_id = $1
       AND hosts.has_inventory_sources <> EXISTS (SELECT 1 FROM host_inventory_sources s WHERE s.host_id = hosts.id)`,
    [inventoryId],
  );
  await tx.query('DELETE FROM smart_inventory_memberships WHERE inventory_id = $1', [inventoryId]);
  await tx.query(UPDATE_COMPUTED(REGULAR_COUNTS), [inventoryId]);
  await refreshSmartInventoriesOf(tx, resources, inventory.organization_id);
}

/** Re-evaluates every smart inventory of an organization (its hosts changed). */
export async function refreshSmartInventoriesOf(tx: Queryable, resources: ResourceSet, organizationId: number): Promise<void> {
  const smart = await tx.query<SmartInventory>(
    `SELECT id, kind, host_filter, organization_id FROM inventories WHERE organization_id = $1 AND kind = 'smart' ORDER BY id`,
    [organizationId],
  );
  for (const inventory of smart) await refreshSmartInventory(tx, resources, inventory);
}

/**
 * Which hosts a smart inventory holds: the hosts of its organization's inventories matching its
 * filter, one per name (the oldest), as AWX. A filter that cannot be evaluated holds no hosts; with
 * `strict` it throws HostFilterError instead (for the write that sets the filter).
 */
export async function refreshSmartInventory(tx: Queryable, resources: ResourceSet, inventory: SmartInventory, strict = false): Promise<void> {
  const params = new Params();
  params.add(inventory.id);
  params.add(inventory.organization_id);
  let condition: string;
  try {
    condition = compileHostFilter(resources, inventory.host_filter ?? '', 'h', params);
  } catch (err) {
    if (!(err instanceof HostFilterError) || strict) throw err;
    condition = 'false';
    params.values.length = 2;
  }
  // A filter may still fail when it runs (an invalid regular expression): the savepoint keeps the transaction usable.
  await tx.query('SAVEPOINT smart_inventory_hosts');
  try {
    await tx.query(
      `WITH wanted AS (
         SELECT DISTINCT ON (h.name) h.id FROM hosts h JOIN inventories source ON source.id = h.inventory_id
         WHERE source.organization_id = $2 AND source.kind <> 'smart' AND ${condition}
         ORDER BY h.name, h.id),
       gone AS (DELETE FROM smart_inventory_memberships m WHERE m.inventory_id = $1 AND m.host_id NOT IN (SELECT id FROM wanted))
       INSERT INTO smart_inventory_memberships (inventory_id, host_id) SELECT $1, id FROM wanted ON CONFLICT DO NOTHING`,
      params.values,
    );
    await tx.query('RELEASE SAVEPOINT smart_inventory_hosts');
  } catch (err) {
    await tx.query('ROLLBACK TO SAVEPOINT smart_inventory_hosts');
    await tx.query('RELEASE SAVEPOINT smart_inventory_hosts');
    if (pgErrorCode(err) === undefined || !pgErrorCode(err)!.startsWith('22')) throw err;
    if (strict) throw new HostFilterError(`Invalid query ${inventory.host_filter}: ${(err as Error).message}`, true);
    await tx.query('DELETE FROM smart_inventory_memberships WHERE inventory_id = $1', [inventory.id]);
  }
  await tx.query(UPDATE_COMPUTED(SMART_COUNTS), [inventory.id]);
}
