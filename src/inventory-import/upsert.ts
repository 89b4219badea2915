import type { Queryable } from '../db/database.ts';
import type { GroupRow, HostRow } from '../db/tables.ts';

/** The columns read of a stored group, and of a stored host. */
type StoredGroup = Pick<GroupRow, 'id' | 'name' | 'variables'>;
type StoredHost = Pick<HostRow, 'id' | 'name' | 'variables' | 'enabled' | 'instance_id' | 'has_inventory_sources'>;
import type { Counts, ImportOptions } from './import.ts';
import { hostEnabled, hostInstanceId, type ParsedInventory } from './parse.ts';
import { combineVariables, readVariables, sameVariables, variablesText } from './variables.ts';

export type NameIds = Map<string, number>;

/** Rows per statement: large enough to keep round trips few, small enough for modest parameters. */
export const BATCH_SIZE = 5000;

function batches<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += BATCH_SIZE) out.push(items.slice(i, i + BATCH_SIZE));
  return out;
}

/** Rows of `table` in the inventory whose name is one of `names`. */
async function byName<T extends { name: string }>(tx: Queryable, table: 'hosts' | 'groups', columns: string, inventoryId: number, names: string[]): Promise<Map<string, T>> {
  const found = new Map<string, T>();
  for (const batch of batches(names)) {
    const rows = await tx.query<T>(
      `SELECT ${columns} FROM ${table} t JOIN unnest($2::text[]) AS wanted(name) ON wanted.name = t.name WHERE t.inventory_id = $1`,
      [inventoryId, batch],
    );
    for (const row of rows) found.set(row.name, row);
  }
  return found;
}

/** Links hosts or groups to the source that brought them. */
async function link(tx: Queryable, table: 'host_inventory_sources' | 'group_inventory_sources', sourceId: number, ids: number[]): Promise<void> {
  const column = table === 'host_inventory_sources' ? 'host_id' : 'group_id';
  for (const batch of batches(ids)) {
    await tx.query(
      `INSERT INTO ${table} (${column}, inventory_source_id) SELECT id, $2 FROM unnest($1::integer[]) AS x(id) ON CONFLICT DO NOTHING`,
      [batch, sourceId],
    );
  }
}

/** Creates the groups the inventory lacks and updates the variables of those it has; answers every group's id by name. */
export async function upsertGroups(tx: Queryable, inventory: ParsedInventory, options: ImportOptions, tally: Counts): Promise<NameIds> {
  const ids: NameIds = new Map();
  const existing = await byName<StoredGroup>(tx, 'groups', 't.id, t.name, t.variables', options.inventoryId, [...inventory.groups.keys()]);
  const fresh: { name: string; vars: string }[] = [];
  const changed: { id: number; vars: string }[] = [];
  for (const [name, group] of inventory.groups) {
    const row = existing.get(name);
    if (!row) {
      fresh.push({ name, vars: variablesText(group.vars) });
      continue;
    }
    ids.set(name, row.id);
    const stored = readVariables(row.variables);
    const vars = combineVariables(stored, group.vars, options.overwriteVars);
    if (sameVariables(vars, stored)) tally.unchanged++;
    else changed.push({ id: row.id, vars: variablesText(vars) });
  }
  for (const batch of batches(fresh)) {
    const rows = await tx.query<{ id: number; name: string }>(
      `INSERT INTO groups (inventory_id, name, description, variables)
       SELECT $1, n, 'imported', v FROM unnest($2::text[], $3::text[]) AS x(n, v)
       ON CONFLICT (inventory_id, name) DO UPDATE SET modified = groups.modified RETURNING id, name`,
      [options.inventoryId, batch.map((g) => g.name), batch.map((g) => g.vars)],
    );
    for (const row of rows) ids.set(row.name, row.id);
  }
  for (const batch of batches(changed)) {
    await tx.query(
      `UPDATE groups g SET variables = x.v, modified = now() FROM unnest($1::integer[], $2::text[]) AS x(id, v) WHERE g.id = x.id`,
      [batch.map((g) => g.id), batch.map((g) => g.vars)],
    );
  }
  tally.added += fresh.length;
  tally.updated += changed.length;
  await link(tx, 'group_inventory_sources', options.inventorySourceId, [...ids.values()]);
  return ids;
}

interface HostChange {
  id: number;
  name: string;
  vars: string;
  enabled: boolean;
  instanceId: string;
}

/**
 * Creates the hosts the inventory lacks and updates those it has (found by name, or by instance id
 * among this source's hosts, which renames them); answers every host's id by name.
 */
export async function upsertHosts(
  tx: Queryable,
  inventory: ParsedInventory,
  options: ImportOptions,
  instanceIds: Map<string, string>,
  tally: Counts,
): Promise<NameIds> {
  const ids: NameIds = new Map();
  const columns = 't.id, t.name, t.variables, t.enabled, t.instance_id, t.has_inventory_sources';
  const existing = await byName<StoredHost>(tx, 'hosts', columns, options.inventoryId, [...inventory.hosts.keys()]);
  const renamed = await renamedHosts(tx, options, instanceIds, existing, columns);
  const fresh: Omit<HostChange, 'id'>[] = [];
  const changed: HostChange[] = [];
  const enabledVar = options.enabledVar ?? '';
  for (const [name, incoming] of inventory.hosts) {
    const enabled = hostEnabled(incoming, enabledVar, options.enabledValue ?? '');
    const instanceId = instanceIds.get(name) ?? '';
    const row = existing.get(name) ?? renamed.get(name);
    if (!row) {
      fresh.push({ name, vars: variablesText(incoming), enabled: enabled ?? true, instanceId });
      continue;
    }
    ids.set(name, row.id);
    const stored = readVariables(row.variables);
    const vars = combineVariables(stored, incoming, options.overwriteVars);
    const next: HostChange = { id: row.id, name, vars: variablesText(vars), enabled: enabled ?? row.enabled, instanceId: instanceId || row.instance_id };
    const same = sameVariables(vars, stored) && next.enabled === row.enabled && next.instanceId === row.instance_id && name === row.name;
    if (same) tally.unchanged++;
    else tally.updated++;
    if (!same || !row.has_inventory_sources) changed.push(same ? { ...next, vars: row.variables } : next);
  }
  for (const batch of batches(fresh)) {
    const rows = await tx.query<{ id: number; name: string }>(
      `INSERT INTO hosts (inventory_id, name, description, variables, enabled, instance_id, has_inventory_sources)
       SELECT $1, n, 'imported', v, e, i, true FROM unnest($2::text[], $3::text[], $4::boolean[], $5::text[]) AS x(n, v, e, i)
       ON CONFLICT (inventory_id, name) DO UPDATE SET has_inventory_sources = true RETURNING id, name`,
      [options.inventoryId, batch.map((h) => h.name), batch.map((h) => h.vars), batch.map((h) => h.enabled), batch.map((h) => h.instanceId)],
    );
    for (const row of rows) ids.set(row.name, row.id);
  }
  for (const batch of batches(changed)) {
    await tx.query(
      `UPDATE hosts h SET name = x.n, variables = x.v, enabled = x.e, instance_id = x.i, has_inventory_sources = true, modified = now()
       FROM unnest($1::integer[], $2::text[], $3::text[], $4::boolean[], $5::text[]) AS x(id, n, v, e, i) WHERE h.id = x.id`,
      [batch.map((h) => h.id), batch.map((h) => h.name), batch.map((h) => h.vars), batch.map((h) => h.enabled), batch.map((h) => h.instanceId)],
    );
  }
  tally.added += fresh.length;
  await link(tx, 'host_inventory_sources', options.inventorySourceId, [...ids.values()]);
  return ids;
}

/**
 * This source's hosts that an incoming host with a new name is known to be, by instance id: the
 * stored one, or for hosts stored before instance ids were read, the one in their variables.
 */
async function renamedHosts(
  tx: Queryable,
  options: ImportOptions,
  instanceIds: Map<string, string>,
  existing: Map<string, StoredHost>,
  columns: string,
): Promise<Map<string, StoredHost>> {
  const wanted = new Map<string, string>();
  for (const [name, id] of instanceIds) if (!existing.has(name)) wanted.set(id, name);
  const renamed = new Map<string, StoredHost>();
  if (!wanted.size || !options.instanceIdVar) return renamed;
  const rootKeys = options.instanceIdVar.split(',').map((p) => p.trim().split('.')[0]).filter(Boolean);
  const taken = new Set([...existing.values()].map((r) => r.id));
  const rows = await tx.query<StoredHost>(
    `SELECT ${columns} FROM hosts t JOIN host_inventory_sources s ON s.host_id = t.id AND s.inventory_source_id = $1
     WHERE t.instance_id = ANY($2::text[])
        OR (t.instance_id = '' AND EXISTS (SELECT 1 FROM unnest($3::text[]) AS k(key) WHERE position(k.key IN t.variables) > 0))
     ORDER BY t.id`,
    [options.inventorySourceId, [...wanted.keys()], rootKeys],
  );
  for (const row of rows) {
    const id = row.instance_id || hostInstanceId(readVariables(row.variables), options.instanceIdVar);
    const name = wanted.get(id);
    if (name === undefined || taken.has(row.id) || renamed.has(name)) continue;
    taken.add(row.id);
    renamed.set(name, row);
  }
  return renamed;
}
