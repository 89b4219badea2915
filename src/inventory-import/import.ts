import type { Queryable } from '../db/database.ts';
import { hostInstanceId, type ParsedGroup, type ParsedInventory } from './parse.ts';
import { BATCH_SIZE, upsertGroups, upsertHosts, type NameIds } from './upsert.ts';
import { readVariables, sameVariables, variablesText } from './variables.ts';

export interface ImportOptions {
  inventoryId: number;
  inventorySourceId: number;
  /** Remove what this source brought before and no longer brings (hosts, groups, memberships). */
  overwrite: boolean;
  /** Replace variables by the source's instead of merging the source's over them. */
  overwriteVars: boolean;
  /** Host variable (dotted path; comma-separated alternatives) deciding whether a host is enabled. */
  enabledVar?: string;
  enabledValue?: string;
  /** Host variable holding a host's unique id: a renamed host is recognized by it. */
  instanceIdVar?: string;
}

export interface Counts {
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
}

export interface ImportSummary {
  hosts: Counts;
  groups: Counts;
  memberships: { hostsAdded: number; hostsRemoved: number; childrenAdded: number; childrenRemoved: number };
  inventoryVariablesUpdated: boolean;
}

const counts = (): Counts => ({ added: 0, updated: 0, unchanged: 0, removed: 0 });

async function count(tx: Queryable, sql: string, params: unknown[]): Promise<number> {
  const [row] = await tx.query<{ n: number }>(`WITH changed AS (${sql} RETURNING 1) SELECT count(*)::int AS n FROM changed`, params);
  return row.n;
}

async function idsOf(tx: Queryable, sql: string, params: unknown[]): Promise<number[]> {
  return (await tx.query<{ id: number }>(sql, params)).map((r) => r.id);
}

/**
 * Imports a parsed inventory into an inventory on behalf of one of its sources, with AWX's
 * rules, in set-based statements; call it inside a transaction (it locks the inventory row so
 * imports into one inventory take turns). Hosts and groups already in the inventory under the
 * same name are adopted; everything the source brings is linked to it. The caller refreshes the
 * inventory's computed fields afterwards.
 */
export async function importInventory(tx: Queryable, inventory: ParsedInventory, options: ImportOptions): Promise<ImportSummary> {
  const { inventoryId, inventorySourceId: sourceId } = options;
  const [target] = await tx.query<{ variables: string }>('SELECT variables FROM inventories WHERE id = $1 FOR UPDATE', [inventoryId]);
  if (!target) throw new Error(`Inventory ${inventoryId} does not exist.`);
  const summary: ImportSummary = {
    hosts: counts(),
    groups: counts(),
    memberships: { hostsAdded: 0, hostsRemoved: 0, childrenAdded: 0, childrenRemoved: 0 },
    inventoryVariablesUpdated: false,
  };
  // What the source had brought before this import: only those memberships are its to remove.
  const previousHosts = await idsOf(tx, 'SELECT host_id AS id FROM host_inventory_sources WHERE inventory_source_id = $1', [sourceId]);
  const previousGroups = await idsOf(tx, 'SELECT group_id AS id FROM group_inventory_sources WHERE inventory_source_id = $1', [sourceId]);
  const instanceIds = new Map<string, string>();
  if (options.instanceIdVar) {
    for (const [name, vars] of inventory.hosts) {
      const id = hostInstanceId(vars, options.instanceIdVar);
      if (id) instanceIds.set(name, id);
    }
  }

  const groupIds = await upsertGroups(tx, inventory, options, summary.groups);
  const hostIds = await upsertHosts(tx, inventory, options, instanceIds, summary.hosts);
  const children = pairs(inventory, groupIds, groupIds, (g) => g.children);
  const members = pairs(inventory, groupIds, hostIds, (g) => g.hosts);

  if (options.overwrite) {
    // What the source brought before and does not bring now (renamed hosts were matched above).
    summary.hosts.removed = await count(
      tx,
      `DELETE FROM hosts h USING host_inventory_sources s
       WHERE s.inventory_source_id = $1 AND s.host_id = h.id AND NOT EXISTS (SELECT 1 FROM unnest($2::integer[]) AS keep(id) WHERE keep.id = h.id)`,
      [sourceId, [...hostIds.values()]],
    );
    summary.groups.removed = await count(
      tx,
      `DELETE FROM groups g USING group_inventory_sources s
       WHERE s.inventory_source_id = $1 AND s.group_id = g.id AND NOT EXISTS (SELECT 1 FROM unnest($2::integer[]) AS keep(id) WHERE keep.id = g.id)`,
      [sourceId, [...groupIds.values()]],
    );
    // Links among this source's groups and hosts that the source no longer has; links to groups
    // and hosts of others (made by hand, or by another source) stay.
    summary.memberships.childrenRemoved = await count(
      tx,
      `DELETE FROM group_children gc USING unnest($1::integer[]) AS parent(id), unnest($2::integer[]) AS child(id)
       WHERE gc.parent_id = parent.id AND gc.child_id = child.id
         AND NOT EXISTS (SELECT 1 FROM unnest($3::integer[], $4::integer[]) AS keep(p, c) WHERE keep.p = gc.parent_id AND keep.c = gc.child_id)`,
      [previousGroups, [...groupIds.values()], children.left, children.right],
    );
    summary.memberships.hostsRemoved = await count(
      tx,
      `DELETE FROM group_hosts gh USING unnest($1::integer[]) AS g(id), unnest($2::integer[]) AS h(id)
       WHERE gh.group_id = g.id AND gh.host_id = h.id
         AND NOT EXISTS (SELECT 1 FROM unnest($3::integer[], $4::integer[]) AS keep(g, h) WHERE keep.g = gh.group_id AND keep.h = gh.host_id)`,
      [previousGroups, previousHosts, members.left, members.right],
    );
  }
  for (let i = 0; i < children.left.length; i += BATCH_SIZE) {
    summary.memberships.childrenAdded += await count(
      tx,
      `INSERT INTO group_children (parent_id, child_id) SELECT p, c FROM unnest($1::integer[], $2::integer[]) AS x(p, c) ON CONFLICT DO NOTHING`,
      [children.left.slice(i, i + BATCH_SIZE), children.right.slice(i, i + BATCH_SIZE)],
    );
  }
  for (let i = 0; i < members.left.length; i += BATCH_SIZE) {
    summary.memberships.hostsAdded += await count(
      tx,
      `INSERT INTO group_hosts (group_id, host_id) SELECT g, h FROM unnest($1::integer[], $2::integer[]) AS x(g, h) ON CONFLICT DO NOTHING`,
      [members.left.slice(i, i + BATCH_SIZE), members.right.slice(i, i + BATCH_SIZE)],
    );
  }

  // The variables of `all` are merged into the inventory's, never replacing them (as AWX).
  if (Object.keys(inventory.vars).length) {
    const stored = readVariables(target.variables);
    const merged = { ...stored, ...inventory.vars };
    if (!sameVariables(merged, stored)) {
      await tx.query('UPDATE inventories SET variables = $2, modified = now() WHERE id = $1', [inventoryId, variablesText(merged)]);
      summary.inventoryVariablesUpdated = true;
    }
  }
  return summary;
}

/** Group-to-member id pairs (parent/child or group/host) as two parallel arrays, self links left out. */
function pairs(
  inventory: ParsedInventory,
  groupIds: NameIds,
  memberIds: NameIds,
  membersOf: (g: ParsedGroup) => string[],
): { left: number[]; right: number[] } {
  const left: number[] = [];
  const right: number[] = [];
  for (const [name, group] of inventory.groups) {
    const gid = groupIds.get(name)!;
    for (const member of membersOf(group)) {
      const mid = memberIds.get(member);
      if (mid === undefined || (memberIds === groupIds && mid === gid)) continue;
      left.push(gid);
      right.push(mid);
    }
  }
  return { left, right };
}

/** Human-readable lines for the update's output. */
export function summaryLines(summary: ImportSummary): string[] {
  const { hosts, groups, memberships: m } = summary;
  const line = (what: string, c: Counts) =>
    `${what}: ${c.added} added, ${c.updated} updated, ${c.unchanged} unchanged, ${c.removed} removed`;
  return [
    line('Hosts', hosts),
    line('Groups', groups),
    `Group memberships: ${m.hostsAdded} hosts added, ${m.hostsRemoved} removed; ${m.childrenAdded} child groups added, ${m.childrenRemoved} removed`,
    `Inventory variables ${summary.inventoryVariablesUpdated ? 'updated' : 'unchanged'}`,
  ];
}
