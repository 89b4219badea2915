/**
 * Copying an inventory, as AWX's FIELDS_TO_PRESERVE_AT_COPY says: its fields, instance groups,
 * hosts and groups with their variables, which hosts are in which groups, and the groups' nesting.
 * Not its sources, labels or job history. A smart inventory takes only its fields (its hosts are
 * other inventories').
 */
import type { RequestContext } from '../../api/context.ts';
import type { CopyRule } from '../../api/copy-route.ts';
import type { Queryable } from '../../db/database.ts';
import { refreshInventoryComputedFields, refreshSmartInventoriesOf } from '../../inventory/computed-fields.ts';
import type { InventoryRow } from '../../db/tables.ts';
import { checkHostQuota } from '../../quotas/host-quota.ts';

async function copyContents(tx: Queryable, ctx: RequestContext, original: InventoryRow, copy: InventoryRow): Promise<void> {
  const params = [original.id, copy.id, ctx.user?.id ?? null];
  await tx.query(
    `INSERT INTO inventory_instance_groups (inventory_id, instance_group_id, position)
     SELECT $2, instance_group_id, position FROM inventory_instance_groups WHERE inventory_id = $1`,
    params.slice(0, 2),
  );
  if (original.kind === 'smart') return;
  await tx.query(
    `INSERT INTO groups (name, description, inventory_id, variables, created_by_id, modified_by_id)
     SELECT name, description, $2, variables, $3, $3 FROM groups WHERE inventory_id = $1 ORDER BY id`,
    params,
  );
  const [hosts] = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM hosts WHERE inventory_id = $1', [original.id]);
  await checkHostQuota(tx, ctx, copy.id, { count: hosts.n, action: 'copy inventory' });
  await tx.query(
    `INSERT INTO hosts (name, description, inventory_id, enabled, instance_id, variables, created_by_id, modified_by_id)
     SELECT name, description, $2, enabled, instance_id, variables, $3, $3 FROM hosts WHERE inventory_id = $1 ORDER BY id`,
    params,
  );
  // Names are unique within an inventory: each copied link is found by the names at both ends.
  await copyLinks(tx, params.slice(0, 2), 'group_hosts', { column: 'group_id', table: 'groups' }, { column: 'host_id', table: 'hosts' });
  await copyLinks(tx, params.slice(0, 2), 'group_children', { column: 'parent_id', table: 'groups' }, { column: 'child_id', table: 'groups' });
  await refreshInventoryComputedFields(tx, ctx.service.resources, copy.id);
  await refreshSmartInventoriesOf(tx, ctx.service.resources, copy.organization_id);
}

export const inventoryCopy: CopyRule = { after: copyContents };

/**
 * Copies the rows of a link table between two objects of the inventory $1 to the same objects,
 * found by name, of the inventory $2.
 */
async function copyLinks(tx: Queryable, params: unknown[], table: string, left: { column: string; table: string }, right: { column: string; table: string }): Promise<void> {
  await tx.query(
    `INSERT INTO ${table} (${left.column}, ${right.column})
     SELECT new_left.id, new_right.id FROM ${table} link
     JOIN ${left.table} old_left ON old_left.id = link.${left.column} AND old_left.inventory_id = $1
     JOIN ${right.table} old_right ON old_right.id = link.${right.column}
     JOIN ${left.table} new_left ON new_left.inventory_id = $2 AND new_left.name = old_left.name
     JOIN ${right.table} new_right ON new_right.inventory_id = $2 AND new_right.name = old_right.name`,
    params,
  );
}
