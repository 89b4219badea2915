/**
 * Copying an inventory, as AWX's FIELDS_TO_PRESERVE_AT_COPY says: its fields, instance groups,
 * hosts and groups with their variables, which hosts are in which groups, and the groups' nesting.
 * Not its sources, labels or job history. A smart inventory takes only its fields (its hosts are
 * other inventories').
 */
import type { RequestContext } from '../../api/context.ts';
import type { CopyRule } from '../../api/copy-route.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { refreshInventoryComputedFields, refreshSmartInventoriesOf } from '../../inventory/computed-fields.ts';

async function copyContents(tx: Queryable, ctx: RequestContext, original: Row, copy: Row): Promise<void> {
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
  await tx.query(
    `INSERT INTO hosts (name, description, inventory_id, enabled, instance_id, variables, created_by_id, modified_by_id)
     SELECT name, description, $2, enabled, instance_id, variables, $3, $3 FROM hosts WHERE inventory_id = $1 ORDER BY id`,
    params,
  );
  // Names are unique within an inventory: each copied link is found by the names at both ends.
  await tx.query(
    `INSERT INTO group_hosts (group_id, host_id)
     SELECT new_group.id, new_host.id FROM group_hosts link
     JOIN groups old_group ON old_group.id = link.group_id AND old_group.inventory_id = $1
     JOIN hosts old_host ON old_host.id = link.host_id
     JOIN groups new_group ON new_group.inventory_id = $2 AND new_group.name = old_group.name
     JOIN hosts new_host ON new_host.inventory_id = $2 AND new_host.name = old_host.name`,
    params.slice(0, 2),
  );
  await tx.query(
    `INSERT INTO group_children (parent_id, child_id)
     SELECT new_parent.id, new_child.id FROM group_children link
     JOIN groups old_parent ON old_parent.id = link.parent_id AND old_parent.inventory_id = $1
     JOIN groups old_child ON old_child.id = link.child_id
     JOIN groups new_parent ON new_parent.inventory_id = $2 AND new_parent.name = old_parent.name
     JOIN groups new_child ON new_child.inventory_id = $2 AND new_child.name = old_child.name`,
    params.slice(0, 2),
  );
  await refreshInventoryComputedFields(tx, copy.id);
  await refreshSmartInventoriesOf(tx, copy.organization_id);
}

export const inventoryCopy: CopyRule = { after: copyContents };
