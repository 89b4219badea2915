import { hasObjectRole, hasObjectRoleOnRow, isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { InventorySourceRow } from '../../db/tables.ts';

/** Using a project as a source needs its use_role (as AWX's check_related on source_project). */
async function mayUseProject(ctx: RequestContext, tx: Queryable, projectId: unknown): Promise<boolean> {
  if (typeof projectId !== 'number' || isSuperuser(ctx)) return true;
  return hasObjectRole(ctx, tx, 'project', projectId, 'use_role');
}

async function administersSomeInventory(ctx: RequestContext, tx: Queryable): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!ctx.user) return false;
  const rows = await tx.query(`SELECT 1 FROM (${objectsWithRole('inventory', ['admin_role'], '$1')}) AS administered LIMIT 1`, [ctx.user.id]);
  return rows.length > 0;
}

/**
 * As AWX's InventorySourceAccess: sources are seen with their inventory's read_role, created,
 * changed and deleted with its admin_role (and the project's use_role for a project source), and
 * updated with its update_role (see mayUpdateSource).
 */
export const inventorySourceAccess: AccessPolicy<InventorySourceRow> = {
  visible: (ctx, alias, params) =>
    seesEverything(ctx) ? null : `${alias}.inventory_id IN (${objectsWithRole('inventory', ['read_role'], params.add(ctx.user?.id ?? 0))})`,
  canCreate: async (ctx, tx, values: Values) => {
    if (typeof values.inventory !== 'number') return administersSomeInventory(ctx, tx);
    return (await hasObjectRole(ctx, tx, 'inventory', values.inventory, 'admin_role')) && mayUseProject(ctx, tx, values.source_project);
  },
  canChange: async (ctx, tx, row, values, page) => {
    if (values.inventory !== undefined && values.inventory !== row.inventory_id) throw forbidden('Unable to change inventory on an inventory source.');
    if (!(await hasObjectRoleOnRow(ctx, tx, 'inventory', 'admin_role', row, page, 'inventory_id'))) return false;
    return values.source_project === undefined || values.source_project === row.source_project_id || mayUseProject(ctx, tx, values.source_project);
  },
  canDelete: (ctx, tx, row, page) => hasObjectRoleOnRow(ctx, tx, 'inventory', 'admin_role', row, page, 'inventory_id'),
  canAttach: () => false,
  actions: { update: (ctx, tx, row) => mayUpdateInventory(ctx, tx, row.inventory_id) },
  capabilities: {
    start: (ctx, tx, row, page) => hasObjectRoleOnRow(ctx, tx, 'inventory', 'update_role', row, page, 'inventory_id'),
    schedule: 'start',
  },
};

/** Whether the caller may start updates of the inventory's sources (its update_role). */
export const mayUpdateInventory = (ctx: RequestContext, tx: Queryable, inventoryId: number) =>
  hasObjectRole(ctx, tx, 'inventory', inventoryId, 'update_role');
