import {
  hasObjectRole,
  hasObjectRoleOnRow,
  holdsRoleSomewhere,
  isSuperuser,
  objectsWithRole,
  seesEverything,
  visibleThroughRole,
  type AccessPolicy,
} from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden } from '../../api/errors.ts';
import type { Queryable } from '../../db/database.ts';
import type { GroupRow, HostRow, InventoryRow } from '../../db/tables.ts';

/**
 * Who may do what with inventories and with the hosts and groups in them, as AWX: an inventory is
 * read with its read_role and managed with its admin_role (which the organization's
 * inventory_admin_role and admin_role hold); hosts and groups follow their inventory.
 */

export const mayAdministerInventory = (ctx: RequestContext, tx: Queryable, inventoryId: number) =>
  hasObjectRole(ctx, tx, 'inventory', inventoryId, 'admin_role');

const administersInventoriesOf = (ctx: RequestContext, tx: Queryable, organizationId: number) =>
  hasObjectRole(ctx, tx, 'organization', organizationId, 'inventory_admin_role');

export async function assertInventoryAdmin(ctx: RequestContext, tx: Queryable, inventoryId: number): Promise<void> {
  if (!(await mayAdministerInventory(ctx, tx, inventoryId))) throw forbidden();
}

export const inventoryAccess: AccessPolicy<InventoryRow> = {
  visible: (ctx, alias, params) => visibleThroughRole(ctx, alias, params, 'inventory'),
  canCreate: (ctx, tx, values) => {
    if (isSuperuser(ctx)) return true;
    if (typeof values.organization === 'number') return administersInventoriesOf(ctx, tx, values.organization);
    return holdsRoleSomewhere(ctx, tx, 'organization', 'inventory_admin_role');
  },
  canChange: async (ctx, tx, row, values, page) => {
    if (isSuperuser(ctx)) return true;
    if (!(await hasObjectRoleOnRow(ctx, tx, 'inventory', 'admin_role', row, page))) return false;
    // Moving an inventory needs the inventory admin role of both organizations (as AWX).
    const target = values.organization;
    if (typeof target === 'number' && target !== row.organization_id) {
      return (await administersInventoriesOf(ctx, tx, row.organization_id)) && administersInventoriesOf(ctx, tx, target);
    }
    // A new host filter reaches into every inventory of the organization: organization level only.
    if (typeof values.host_filter === 'string' && values.host_filter !== '' && values.host_filter !== row.host_filter) {
      return administersInventoriesOf(ctx, tx, row.organization_id);
    }
    return true;
  },
  canDelete: (ctx, tx, row, page) => hasObjectRoleOnRow(ctx, tx, 'inventory', 'admin_role', row, page),
  canAttach: (ctx, tx, row) => mayAdministerInventory(ctx, tx, row.id),
  actions: {
    update: (ctx, tx, row) => hasObjectRole(ctx, tx, 'inventory', row.id, 'update_role'),
    administer: (ctx, tx, row) => mayAdministerInventory(ctx, tx, row.id),
  },
  capabilities: {
    copy: (ctx, tx, row, page) => hasObjectRoleOnRow(ctx, tx, 'organization', 'inventory_admin_role', row, page, 'organization_id'),
    adhoc: (ctx, tx, row, page) => hasObjectRoleOnRow(ctx, tx, 'inventory', 'adhoc_role', row, page),
  },
};

/** Per request: whether the caller reads some smart inventory (whose hosts he then sees too). */
const readsSmartInventory = new WeakMap<RequestContext, boolean>();

/**
 * The policy of hosts or groups: visible with their inventory's read_role (hosts also through a
 * smart inventory one reads), created, changed and deleted with its admin_role. The inventory of a
 * host or group never changes.
 */
export function inventoryMemberAccess(kind: 'host' | 'group'): AccessPolicy<HostRow | GroupRow> {
  const label = kind === 'host' ? 'a host' : 'a group';
  const administers = (ctx: RequestContext, tx: Queryable, row: HostRow | GroupRow, page?: readonly (HostRow | GroupRow)[]) =>
    hasObjectRoleOnRow(ctx, tx, 'inventory', 'admin_role', row, page, 'inventory_id');
  return {
    visible: (ctx, alias, params) => {
      if (seesEverything(ctx)) return null;
      const readable = objectsWithRole('inventory', ['read_role'], params.add(ctx.user?.id ?? 0));
      const own = `${alias}.inventory_id IN (${readable})`;
      if (kind === 'group' || readsSmartInventory.get(ctx) === false) return own;
      return `(${own} OR ${alias}.id IN (SELECT m.host_id FROM smart_inventory_memberships m WHERE m.inventory_id IN (${readable})))`;
    },
    prepare: async (ctx, db) => {
      if (kind === 'group' || !ctx.user || seesEverything(ctx) || readsSmartInventory.has(ctx)) return;
      const rows = await db.query(
        `SELECT 1 FROM inventories WHERE kind = 'smart' AND id IN (${objectsWithRole('inventory', ['read_role'], '$1')}) LIMIT 1`,
        [ctx.user.id],
      );
      readsSmartInventory.set(ctx, rows.length > 0);
    },
    canCreate: (ctx, tx, values) => {
      if (typeof values.inventory === 'number') return mayAdministerInventory(ctx, tx, values.inventory);
      // Without an inventory named (OPTIONS): hosts may be created by whoever administers one; groups only through one (as AWX).
      return kind === 'host' ? holdsRoleSomewhere(ctx, tx, 'inventory', 'admin_role') : isSuperuser(ctx);
    },
    canChange: (ctx, tx, row, values, page) => {
      if (values.inventory !== undefined && values.inventory !== row.inventory_id) throw forbidden(`Unable to change inventory on ${label}.`);
      return administers(ctx, tx, row, page);
    },
    canDelete: (ctx, tx, row, page) => administers(ctx, tx, row, page),
    canAttach: (ctx, tx, row) => administers(ctx, tx, row),
    // As AWX: whoever may change a group may copy it.
    ...(kind === 'group' && { capabilities: { copy: 'edit' } }),
  };
}
