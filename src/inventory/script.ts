import type { Queryable } from '../db/database.ts';
import type { GroupRow, HostRow, InventoryRow } from '../db/tables.ts';

type ScriptHost = Pick<HostRow, 'id' | 'name' | 'variables' | 'enabled'>;
import { parseVariables, type Variables } from './variables.ts';

export interface ScriptOptions {
  /** Include `_meta.hostvars` (every host's variables). */
  hostvars: boolean;
  /** Add remote_tower_enabled ("true"/"false") and remote_tower_id to each host's variables. */
  towervars: boolean;
  /** Include disabled hosts. */
  all: boolean;
  /** `sliceNofM`: every M-th host starting at the N-th (job slicing). */
  subset?: string;
}

export class SubsetError extends Error {}

/** Reads `slice<N>of<M>` as AWX does. */
export function parseSubset(subset: string): { number: number; count: number } {
  if (!subset.startsWith('slice')) throw new SubsetError('Subset does not use any supported syntax.');
  const m = /^slice(\d+)of(\d+)/.exec(subset);
  if (!m) throw new SubsetError('Could not parse subset as slice specification.');
  const number = Number(m[1]);
  const count = Number(m[2]);
  if (number > count) throw new SubsetError('Slice number must be less than total number of slices.');
  if (number < 1) throw new SubsetError('Slice number must be 1 or higher.');
  return { number, count };
}

function listIn(map: Map<number, string[]>, key: number): string[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/** The hosts of an inventory as the script shows them, ordered by name: its own, or those a smart inventory selects. */
function hostsOf(db: Queryable, inventory: Pick<InventoryRow, 'id' | 'kind'>, all: boolean): Promise<ScriptHost[]> {
  const enabled = all ? '' : 'AND h.enabled';
  const source = inventory.kind === 'smart'
    ? 'FROM smart_inventory_memberships m JOIN hosts h ON h.id = m.host_id WHERE m.inventory_id = $1'
    : 'FROM hosts h WHERE h.inventory_id = $1';
  return db.query<ScriptHost>(`SELECT h.id, h.name, h.variables, h.enabled ${source} ${enabled} ORDER BY h.name, h.id`, [inventory.id]);
}

/**
 * The inventory as Ansible's JSON inventory (AWX's get_script_data): `all` with the ungrouped hosts,
 * every group as a child and the inventory variables; one entry per group with its hosts, children
 * and variables; `_meta.hostvars` with every host's variables when asked. A handful of queries for
 * the whole inventory; job runs write their inventory file from it.
 */
export async function inventoryScript(db: Queryable, inventoryId: number, options: ScriptOptions): Promise<Record<string, unknown>> {
  const [inventory] = await db.query<Pick<InventoryRow, 'id' | 'kind' | 'variables'>>('SELECT id, kind, variables FROM inventories WHERE id = $1', [inventoryId]);
  if (!inventory) throw new Error(`inventory ${inventoryId} does not exist`);
  let hosts = await hostsOf(db, inventory, options.all);
  if (options.subset) {
    const { number, count } = parseSubset(options.subset);
    if (count > 1) hosts = hosts.filter((_, index) => index % count === number - 1);
  }
  const data: Record<string, unknown> = {};
  const allGroup: Record<string, unknown> = {};
  data.all = allGroup;
  const inventoryVars = parseVariables(inventory.variables);
  if (Object.keys(inventoryVars).length) allGroup.vars = inventoryVars;

  if (inventory.kind === 'smart') {
    allGroup.hosts = hosts.map((h) => h.name);
  } else {
    const shown = new Set(hosts.map((h) => h.name));
    const [memberships, nesting, groups] = await Promise.all([
      db.query<{ group_id: number; name: string }>(
        `SELECT gh.group_id, h.name FROM group_hosts gh JOIN hosts h ON h.id = gh.host_id
         WHERE h.inventory_id = $1 ORDER BY h.name, h.id`,
        [inventoryId],
      ),
      db.query<{ parent_id: number; name: string }>(
        `SELECT gc.parent_id, child.name FROM group_children gc JOIN groups child ON child.id = gc.child_id
         WHERE child.inventory_id = $1 ORDER BY child.name, child.id`,
        [inventoryId],
      ),
      db.query<Pick<GroupRow, 'id' | 'name' | 'variables'>>('SELECT id, name, variables FROM groups WHERE inventory_id = $1 ORDER BY name, id', [inventoryId]),
    ]);
    const groupHosts = new Map<number, string[]>();
    const grouped = new Set<string>();
    for (const { group_id, name } of memberships) {
      if (!shown.has(name)) continue;
      listIn(groupHosts, group_id).push(name);
      grouped.add(name);
    }
    const groupChildren = new Map<number, string[]>();
    for (const { parent_id, name } of nesting) listIn(groupChildren, parent_id).push(name);

    allGroup.hosts = hosts.filter((h) => !grouped.has(h.name)).map((h) => h.name);
    for (const group of groups) {
      const info: Record<string, unknown> = {};
      if (groupHosts.has(group.id)) info.hosts = groupHosts.get(group.id);
      if (groupChildren.has(group.id)) info.children = groupChildren.get(group.id);
      const vars = parseVariables(group.variables);
      if (Object.keys(vars).length) info.vars = vars;
      if (Object.keys(info).length) data[group.name] = info;
    }
    // Every group is a child of all, empty ones included.
    if (groups.length) allGroup.children = groups.map((g) => g.name);
  }

  if (options.hostvars) {
    const hostvars: Record<string, Variables> = {};
    for (const host of hosts) {
      const vars = parseVariables(host.variables);
      if (options.towervars) Object.assign(vars, { remote_tower_enabled: String(host.enabled), remote_tower_id: host.id });
      hostvars[host.name] = vars;
    }
    data._meta = { hostvars };
  }
  return data;
}

/** The variables of one host of the inventory by name (GET .../script/?host=name), or null when it is not there (or disabled, unless `all`). */
export async function hostScriptVariables(db: Queryable, inventoryId: number, hostName: string, all: boolean): Promise<Variables | null> {
  const [inventory] = await db.query<Pick<InventoryRow, 'id' | 'kind'>>('SELECT id, kind FROM inventories WHERE id = $1', [inventoryId]);
  if (!inventory) return null;
  const source = inventory.kind === 'smart'
    ? 'FROM smart_inventory_memberships m JOIN hosts h ON h.id = m.host_id WHERE m.inventory_id = $1'
    : 'FROM hosts h WHERE h.inventory_id = $1';
  const [host] = await db.query<Pick<HostRow, 'variables'>>(`SELECT h.variables ${source} AND h.name = $2 ${all ? '' : 'AND h.enabled'} ORDER BY h.id LIMIT 1`, [inventoryId, hostName]);
  return host ? parseVariables(host.variables) : null;
}
