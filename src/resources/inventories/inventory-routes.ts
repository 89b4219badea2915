import type { RouteModule } from '../../api/extra-routes.ts';
import { badRequest, notFound } from '../../api/errors.ts';
import type { Query } from '../../api/list.ts';
import { viewOptions } from '../../api/options.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { serializeRows } from '../../api/serialize.ts';
import type { SerializedObject } from '../../api/resource.ts';
import type { GroupChildrenRow, GroupRow, InventoryRow } from '../../db/tables.ts';

import { objectPermission } from '../../api/permissions.ts';
import { hostScriptVariables, inventoryScript, parseSubset, SubsetError } from '../../inventory/script.ts';
import { registerVariableDataRoutes } from './variable-data-routes.ts';
import { registerCopyRoute } from '../../api/copy-route.ts';
import { inventoryCopy } from './inventory-copy.ts';

const last = (value: string | string[] | undefined) => [value].flat().pop();

/** A yes/no query parameter: absent, empty, 0, false, no and off mean no. */
const flag = (query: Query, name: string) => {
  const value = last(query[name]);
  return value !== undefined && !['', '0', 'false', 'no', 'off'].includes(value.toLowerCase());
};

/** The root groups of an inventory, each with its children nested under `children`, sorted by name (AWX's tree view). */
function groupTree(serialized: SerializedObject[], links: GroupChildrenRow[]): SerializedObject[] {
  const byId = new Map(serialized.map((g) => [g.id, g]));
  const childIds = new Map<number, number[]>();
  for (const { parent_id, child_id } of links) {
    if (!childIds.has(parent_id)) childIds.set(parent_id, []);
    childIds.get(parent_id)!.push(child_id);
  }
  const done = new Set<number>();
  const nameOf = (group: SerializedObject) => String(group.name);
  const populate = (group: SerializedObject) => {
    if (done.has(group.id)) return;
    done.add(group.id);
    const children = (childIds.get(group.id) ?? []).map((id) => byId.get(id)!).sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
    group.children = children;
    for (const child of children) populate(child);
  };
  const hasParent = new Set(links.map((l) => l.child_id));
  const roots = serialized.filter((g) => !hasParent.has(g.id));
  for (const root of roots) populate(root);
  return roots;
}

export const inventoryRoutes: RouteModule = (app, services) => {
  const { db } = services;
  const inventories = services.resources.get('inventory');
  const base = '/api/v2/inventories/:id/';
  registerCopyRoute(app, services, inventories, inventoryCopy);

  routeMethods<InventoryRow>(app, `${base}script/`, objectPermission('inventory'), {
    GET: async (request) => {
      const inventory = request.object;
      const query = request.query as Query;
      const all = flag(query, 'all');
      const host = last(query.host);
      if (host) {
        const vars = await hostScriptVariables(db, inventory.id, host, all);
        if (!vars) throw notFound();
        return vars;
      }
      const subset = last(query.subset) || undefined;
      if (subset) {
        try {
          parseSubset(subset);
        } catch (err) {
          if (err instanceof SubsetError) throw badRequest(err.message);
          throw err;
        }
      }
      return inventoryScript(db, inventory.id, { hostvars: flag(query, 'hostvars'), towervars: flag(query, 'towervars'), all, subset });
    },
    OPTIONS: async () => viewOptions('Inventory Script', 'The inventory as Ansible JSON inventory (hostvars, towervars, all, subset, host).'),
  });

  routeMethods<InventoryRow>(app, `${base}tree/`, objectPermission('inventory'), {
    GET: async (request) => {
      const inventory = request.object;
      const groups = services.resources.get('group');
      const rows = await db.query<GroupRow>('SELECT * FROM groups WHERE inventory_id = $1 ORDER BY name, id', [inventory.id]);
      const links = await db.query<GroupChildrenRow>(
        'SELECT gc.parent_id, gc.child_id FROM group_children gc JOIN groups g ON g.id = gc.parent_id WHERE g.inventory_id = $1',
        [inventory.id],
      );
      return groupTree(await serializeRows(db, request.ctx, groups, rows), links);
    },
    OPTIONS: async () => viewOptions('Group Tree', 'The groups of the inventory nested under their parents.'),
  });

  registerVariableDataRoutes(app, services, inventories);
};
