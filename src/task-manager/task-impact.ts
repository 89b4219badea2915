import type { Queryable } from '../db/database.ts';
import { INVENTORY_HOSTS } from '../inventory/group-graph.ts';
import { applyLimit, LimitError } from '../inventory-import/limit.ts';
import type { ParsedInventory } from '../inventory-import/parse.ts';

const DEFAULT_FORKS = 5;

/** How many enabled hosts of the inventory a host pattern selects (all of them without one, or when it does not parse). */
async function hostsMatched(tx: Queryable, inventoryId: number, limit: string): Promise<number> {
  if (!limit.trim()) {
    const [{ count }] = await tx.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM ${INVENTORY_HOSTS} JOIN hosts h ON h.id = inventory_host.host_id WHERE inventory_host.inventory_id = $1 AND h.enabled`,
      [inventoryId],
    );
    return count;
  }
  const hosts = await tx.query<{ name: string }>(
    `SELECT h.name FROM ${INVENTORY_HOSTS} JOIN hosts h ON h.id = inventory_host.host_id WHERE inventory_host.inventory_id = $1 AND h.enabled`,
    [inventoryId],
  );
  const inventory: ParsedInventory = { vars: {}, hosts: new Map(hosts.map((h) => [h.name, {}])), groups: new Map() };
  for (const group of await tx.query<{ name: string }>('SELECT name FROM groups WHERE inventory_id = $1', [inventoryId])) {
    inventory.groups.set(group.name, { vars: {}, hosts: [], children: [] });
  }
  const members = await tx.query<{ group_name: string; host_name: string }>(
    `SELECT g.name AS group_name, h.name AS host_name FROM group_hosts gh JOIN groups g ON g.id = gh.group_id JOIN hosts h ON h.id = gh.host_id
     WHERE g.inventory_id = $1 AND h.enabled`,
    [inventoryId],
  );
  for (const m of members) inventory.groups.get(m.group_name)?.hosts.push(m.host_name);
  const children = await tx.query<{ parent: string; child: string }>(
    `SELECT p.name AS parent, c.name AS child FROM group_children gc JOIN groups p ON p.id = gc.parent_id JOIN groups c ON c.id = gc.child_id
     WHERE p.inventory_id = $1`,
    [inventoryId],
  );
  for (const link of children) inventory.groups.get(link.parent)?.children.push(link.child);
  try {
    applyLimit(inventory, limit);
  } catch (err) {
    if (!(err instanceof LimitError)) throw err;
  }
  return inventory.hosts.size;
}

/** AWX's task impact of a job or ad hoc command: one fork per host it runs on (its limit applied), up to its forks (5 when 0), plus one for the control process. */
export async function taskImpact(tx: Queryable, inventoryId: number, limit: string, forks: number): Promise<number> {
  return Math.min(await hostsMatched(tx, inventoryId, limit), forks > 0 ? forks : DEFAULT_FORKS) + 1;
}
