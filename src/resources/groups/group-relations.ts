import type { RequestContext } from '../../api/context.ts';
import { associate, createObject, parseRequestBody } from '../../api/crud.ts';
import { ApiError, badRequest, forbidden, type FieldErrors } from '../../api/errors.ts';
import { isVisible } from '../../api/list.ts';
import type { Relation } from '../../api/relations.ts';
import type { Queryable } from '../../db/database.ts';
import type { GroupRow, HostRow } from '../../db/tables.ts';
import { refreshInventoryComputedFields } from '../../inventory/computed-fields.ts';
import { wouldCloseCycle } from '../../inventory/group-graph.ts';
import { mayAdministerInventory } from '../inventories/inventory-access.ts';

/**
 * The links between hosts and groups of one inventory: group hosts (group_hosts) and group
 * children (group_children). Linking needs the inventory's admin_role and an object of the same
 * inventory; children never close a cycle. Every link keeps the inventory's computed fields true.
 */

type Kind = 'host' | 'group';
const TABLE: Record<Kind, string> = { host: 'hosts', group: 'groups' };

async function inventoryOf(tx: Queryable, kind: Kind, id: number): Promise<number> {
  const [row] = await tx.query<Pick<HostRow | GroupRow, 'inventory_id'>>(`SELECT inventory_id FROM ${TABLE[kind]} WHERE id = $1`, [id]);
  return row?.inventory_id;
}

/** Throws 403 or 400 unless the caller may link `target` to `owner` (or unlink it). */
async function authorizeLink(
  ctx: RequestContext,
  tx: Queryable,
  owner: { kind: Kind; id: number },
  target: { kind: Kind; id: number },
  detach: boolean,
): Promise<void> {
  const inventoryId = await inventoryOf(tx, owner.kind, owner.id);
  if (!(await mayAdministerInventory(ctx, tx, inventoryId))) throw forbidden();
  if (detach) return;
  if (!(await isVisible(tx, ctx, ctx.service.resources.get(target.kind), target.id))) throw forbidden();
  if ((await inventoryOf(tx, target.kind, target.id)) !== inventoryId) throw badRequest('Cannot associate two items from different inventories.');
  if (owner.kind === 'group' && target.kind === 'group' && (await wouldCloseCycle(tx, owner.id, target.id))) {
    throw new ApiError(400, { error: 'Cyclical Group association.' });
  }
}

/** A link table between two objects of one inventory, whose changes refresh the inventory's computed fields. */
function inventoryLink(
  spec: { target: Kind; owner: Kind; table: string; parentColumn: string; targetColumn: string; association: string },
): Relation {
  const { table, parentColumn, targetColumn } = spec;
  const change = async (tx: Queryable, ctx: RequestContext, sql: string, parentId: number, targetId: number) => {
    const changed = (await tx.query(sql, [parentId, targetId])).length > 0;
    if (changed) await refreshInventoryComputedFields(tx, ctx.service.resources, await inventoryOf(tx, spec.owner, parentId));
    return changed;
  };
  return {
    target: spec.target,
    from: table,
    parentColumn,
    targetColumn,
    attachable: true,
    association: spec.association,
    authorize: (ctx, tx, parentId, targetId, detach) =>
      authorizeLink(ctx, tx, { kind: spec.owner, id: parentId }, { kind: spec.target, id: targetId }, detach),
    attach: (tx, parentId, targetId, ctx) =>
      change(tx, ctx, `INSERT INTO ${table} (${parentColumn}, ${targetColumn}) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1`, parentId, targetId),
    detach: (tx, parentId, targetId, ctx) =>
      change(tx, ctx, `DELETE FROM ${table} WHERE ${parentColumn} = $1 AND ${targetColumn} = $2 RETURNING 1`, parentId, targetId),
  };
}

/** A body naming no variables, as AWX tells "link the existing host" from "create one" (an empty text, {} or ---). */
const namesNoVariables = (variables: unknown) =>
  variables === undefined || variables === '' || variables === '{}' || variables === '---' || variables === null;

/**
 * Creates an object through a group's list in the group's inventory and links it to the group.
 * `inventory`: 'fixed' overrides the body (hosts, as AWX), 'default' only fills it in.
 */
async function createLinked(
  tx: Queryable, ctx: RequestContext, group: GroupRow, relation: string, body: Record<string, unknown>, refused: FieldErrors, inventory: 'fixed' | 'default',
) {
  const target = ctx.service.resources.get(relation === 'hosts' ? 'host' : 'group');
  const input = { ...body };
  if (inventory === 'fixed' || input.inventory === undefined) input.inventory = group.inventory_id;
  const values = await parseRequestBody(target, input, 'create', null, (v) => target.access.canCreate(ctx, tx, v), refused);
  const row = await createObject<HostRow | GroupRow>(tx, ctx, target, values);
  await associate(tx, ctx, ctx.service.resources.get('group'), group, relation, row.id, false);
  return row;
}

export const groupHosts: Relation = {
  ...inventoryLink({ target: 'host', owner: 'group', table: 'group_hosts', parentColumn: 'group_id', targetColumn: 'host_id', association: 'hosts' }),
  createFills: ['inventory'],
  async create(tx, ctx, group: GroupRow, body, refused) {
    // Naming a host the inventory already has, without variables, links that host (as AWX); a body with problems links nothing.
    if (typeof body.name === 'string' && namesNoVariables(body.variables) && !Object.keys(refused).length) {
      const [existing] = await tx.query<Pick<HostRow, 'id'>>('SELECT id FROM hosts WHERE inventory_id = $1 AND name = $2', [group.inventory_id, body.name]);
      if (existing) {
        await associate(tx, ctx, ctx.service.resources.get('group'), group, 'hosts', existing.id, false);
        return null;
      }
    }
    return createLinked(tx, ctx, group, 'hosts', body, refused, 'fixed');
  },
};

export const groupChildren: Relation = {
  ...inventoryLink({ target: 'group', owner: 'group', table: 'group_children', parentColumn: 'parent_id', targetColumn: 'child_id', association: 'children' }),
  // A child group may name its inventory (one other than the group's is refused when linking).
  createFills: ['inventory'],
  create: (tx, ctx, group: GroupRow, body, refused) => createLinked(tx, ctx, group, 'children', body, refused, 'default'),
};

export const hostGroups: Relation = {
  ...inventoryLink({ target: 'group', owner: 'host', table: 'group_hosts', parentColumn: 'host_id', targetColumn: 'group_id', association: 'groups' }),
  // POST without an id creates a group, of the host's inventory unless the body names one (another is refused when linking), holding the host (AWX's HostGroupsList).
  createFills: ['inventory'],
  createAndLink: { defaults: async (_tx, host) => ({ inventory: (host as HostRow).inventory_id }) },
};
