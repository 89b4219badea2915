/**
 * AWX's bulk host endpoints (awx/api/serializers.py BulkHostCreateSerializer, BulkHostDeleteSerializer):
 * many hosts of one inventory created, or many hosts deleted, in one transaction, the inventories'
 * computed fields refreshed once per inventory, one activity stream entry per inventory.
 */
import { isSuperuser } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { ApiError, ValidationError } from '../../api/errors.ts';
import { recordActivity } from '../../activity/record.ts';
import { Params } from '../../api/sql.ts';
import type { Queryable } from '../../db/database.ts';
import { refreshInventoryComputedFields } from '../../inventory/computed-fields.ts';
import { isMapping, variablesProblem } from '../../inventory/variables.ts';
import { checkHostQuota } from '../../quotas/host-quota.ts';
import { mayAdministerInventory } from '../inventories/inventory-access.ts';

export interface NewHost {
  name: string;
  description: string;
  enabled: boolean;
  instance_id: string;
  variables: string;
}

const nonField = (message: string) => new ValidationError({ __all__: [message] });
/** Python's repr of a list of strings, as AWX's messages print them. */
const pyList = (names: readonly string[]) => `[${names.map((n) => `'${n.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`).join(', ')}]`;

/** An integer id as DRF's PrimaryKeyRelatedField reads it (a number or its digits), else undefined. */
export function idOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= 2147483647 ? n : undefined;
}

function text(host: Record<string, unknown>, field: string, max: number, errors: Record<string, string[]>): string {
  const value = host[field];
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string' && typeof value !== 'number') return (errors[field] = ['Not a valid string.']), '';
  const s = String(value);
  if (s.length > max) errors[field] = [`Ensure this field has no more than ${max} characters.`];
  return s;
}

/** One host of the body, as BulkHostSerializer checks it; its problems by field. */
function readHost(raw: unknown): { host?: NewHost; errors?: Record<string, string[]> } {
  if (!isMapping(raw)) return { errors: { non_field_errors: ['Invalid data. Expected a dictionary, but got ' + (Array.isArray(raw) ? 'list' : typeof raw) + '.'] } };
  const errors: Record<string, string[]> = {};
  const name = raw.name;
  if (name === undefined) errors.name = ['This field is required.'];
  else if (typeof name !== 'string' || !name.trim()) errors.name = [typeof name === 'string' ? 'This field may not be blank.' : 'Not a valid string.'];
  else if (name.length > 512) errors.name = ['Ensure this field has no more than 512 characters.'];
  const enabled = raw.enabled ?? true;
  if (typeof enabled !== 'boolean') errors.enabled = ['Must be a valid boolean.'];
  let variables = '';
  if (isMapping(raw.variables)) variables = JSON.stringify(raw.variables);
  else if (raw.variables !== undefined && raw.variables !== null) {
    if (typeof raw.variables !== 'string') errors.variables = ['Not a valid string.'];
    else {
      variables = raw.variables;
      const problem = variables && variablesProblem(variables);
      if (problem) errors.variables = [problem];
    }
  }
  const host = { name: name as string, description: text(raw, 'description', 1_000_000, errors), enabled: enabled as boolean, instance_id: text(raw, 'instance_id', 1024, errors), variables };
  return Object.keys(errors).length ? { errors } : { host };
}

/** The body of host_create/: its inventory and hosts, or a 400 as AWX's serializer words it. */
export function readHostCreate(body: Record<string, unknown>): { inventoryId: number; hosts: NewHost[] } {
  const errors: Record<string, unknown> = {};
  const inventoryId = idOf(body.inventory);
  if (body.inventory === undefined || body.inventory === null) errors.inventory = ['This field is required.'];
  else if (inventoryId === undefined) errors.inventory = [`Incorrect type. Expected pk value, received ${typeof body.inventory === 'string' ? 'str' : typeof body.inventory}.`];
  const hosts: NewHost[] = [];
  if (body.hosts === undefined || body.hosts === null) errors.hosts = ['This field is required.'];
  else if (!Array.isArray(body.hosts)) errors.hosts = [`Expected a list of items but got type "${typeof body.hosts === 'object' ? 'dict' : typeof body.hosts}".`];
  else if (!body.hosts.length) errors.hosts = ['This list may not be empty.'];
  else {
    const problems: Record<number, Record<string, string[]>> = {};
    body.hosts.forEach((raw, i) => {
      const read = readHost(raw);
      if (read.errors) problems[i] = read.errors;
      else hosts.push(read.host!);
    });
    if (Object.keys(problems).length) errors.hosts = problems;
  }
  if (Object.keys(errors).length) throw new ApiError(400, errors);
  return { inventoryId: inventoryId!, hosts };
}

/** Rows per INSERT: few round trips, and well under PostgreSQL's limits on an array parameter's size. */
const BATCH = 5000;

/**
 * Creates the hosts in the inventory, AWX's checks in AWX's order: the inventory exists and is a
 * manual one, the count is within BULK_HOST_MAX_CREATE, the caller administers it, no name is taken
 * or given twice; then the tenant's max_hosts. Answers AWX's body.
 */
export async function createHosts(tx: Queryable, ctx: RequestContext, inventoryId: number, hosts: readonly NewHost[]): Promise<Record<string, unknown>> {
  const [inventory] = await tx.query<{ id: number; kind: string; total_hosts: number }>('SELECT id, kind, total_hosts FROM inventories WHERE id = $1 FOR UPDATE', [inventoryId]);
  if (!inventory) throw new ValidationError({ inventory: [`Invalid pk "${inventoryId}" - object does not exist.`] });
  if (inventory.kind !== '') throw nonField('Hosts can only be created in manual inventories (not smart or constructed types).');
  if (hosts.length > ctx.service.settings.get<number>('BULK_HOST_MAX_CREATE')) throw nonField('Number of hosts exceeds system setting BULK_HOST_MAX_CREATE');
  if (!isSuperuser(ctx) && !(await mayAdministerInventory(ctx, tx, inventoryId))) {
    throw nonField(`Inventory with id ${inventoryId} not found or lack permissions to add hosts.`);
  }
  const names = hosts.map((h) => h.name);
  const taken = new Set((await tx.query<{ name: string }>('SELECT name FROM hosts WHERE inventory_id = $1 AND name = ANY($2::text[])', [inventoryId, names])).map((r) => r.name));
  const seen = new Map<string, number>();
  for (const name of names) seen.set(name, (seen.get(name) ?? 0) + 1);
  const duplicates = names.filter((n) => taken.has(n) || seen.get(n)! > 1);
  if (duplicates.length) throw nonField(`Hostnames must be unique in an inventory. Duplicates found: ${pyList(duplicates)}`);
  const [group] = await tx.query<{ name: string }>('SELECT name FROM groups WHERE inventory_id = $1 AND name = ANY($2::text[]) LIMIT 1', [inventoryId, names]);
  if (group) throw nonField(`A Group with that name already exists: ${group.name}`);
  await checkHostQuota(tx, ctx, inventoryId, { count: hosts.length, action: 'bulk create hosts' });

  const ids: number[] = [];
  const actor = ctx.user?.id ?? null;
  for (let i = 0; i < hosts.length; i += BATCH) {
    const batch = hosts.slice(i, i + BATCH);
    const rows = await tx.query<{ id: number }>(
      `INSERT INTO hosts (inventory_id, name, description, enabled, instance_id, variables, created_by_id, modified_by_id)
       SELECT $1, n, d, e, i, v, $7, $7 FROM unnest($2::text[], $3::text[], $4::boolean[], $5::text[], $6::text[]) WITH ORDINALITY AS x(n, d, e, i, v, o)
       ORDER BY o RETURNING id`,
      [inventoryId, batch.map((h) => h.name), batch.map((h) => h.description), batch.map((h) => h.enabled), batch.map((h) => h.instance_id), batch.map((h) => h.variables), actor],
    );
    ids.push(...rows.map((r) => r.id).sort((a, b) => a - b));
  }
  await refreshInventoryComputedFields(tx, ctx.service.resources, inventoryId);
  await recordActivity(tx, ctx, { operation: 'update', object1: 'inventory', object1Id: inventoryId, changes: { total_hosts: [inventory.total_hosts, inventory.total_hosts + hosts.length] } });
  const url = `/api/v2/inventories/${inventoryId}/`;
  return {
    url,
    hosts: hosts.map((h, i) => ({ name: h.name, enabled: h.enabled, instance_id: h.instance_id, description: h.description, variables: h.variables, id: ids[i], url: `/api/v2/hosts/${ids[i]}/`, inventory: url })),
  };
}

/** The body of host_delete/: the ids, or a 400 as AWX's serializer words it. */
export function readHostDelete(body: Record<string, unknown>): number[] {
  const { hosts } = body;
  if (hosts === undefined || hosts === null) throw new ApiError(400, { hosts: ['This field is required.'] });
  if (!Array.isArray(hosts)) throw new ApiError(400, { hosts: [`Expected a list of items but got type "${typeof hosts === 'object' ? 'dict' : typeof hosts}".`] });
  if (!hosts.length) throw new ApiError(400, { hosts: ['This list may not be empty.'] });
  const ids = hosts.map(idOf);
  const bad = hosts.filter((_, i) => ids[i] === undefined);
  if (bad.length) throw new ApiError(400, { hosts: Object.fromEntries(bad.map((b) => [String(b), 'A valid integer is required.'])) });
  return [...new Set(ids as number[])];
}

/**
 * Deletes the hosts, AWX's checks in AWX's order: the count is within BULK_HOST_MAX_DELETE, every
 * id names a host the caller may see, the caller administers every inventory involved (403
 * naming those it does not), each is a manual one. Answers {hosts: {id: "The host <name> was deleted"}}.
 */
export async function deleteHosts(tx: Queryable, ctx: RequestContext, given: readonly number[], count: number): Promise<Record<string, unknown>> {
  const max = ctx.service.settings.get<number>('BULK_HOST_MAX_DELETE');
  if (count > max) {
    throw new ApiError(400, { ERROR: 'Number of hosts exceeds system setting BULK_HOST_MAX_DELETE', BULK_HOST_MAX_DELETE: max, Hosts_count: count });
  }
  const hostsResource = ctx.service.resources.get('host');
  const params = new Params();
  const idsParam = params.add([...given]);
  const visible = hostsResource.access.visible(ctx, 'h', params);
  const rows = await tx.query<{ id: number; name: string; inventory_id: number }>(
    `SELECT h.id, h.name, h.inventory_id FROM hosts h WHERE h.id = ANY(${idsParam}::int[])${visible ? ` AND ${visible}` : ''} ORDER BY h.id FOR UPDATE OF h`,
    params.values,
  );
  const found = new Set(rows.map((r) => r.id));
  const missing = given.filter((id) => !found.has(id));
  if (missing.length) throw new ApiError(400, { hosts: Object.fromEntries(missing.map((id) => [String(id), 'Hosts do not exist or you lack permission to delete it'])) });
  const inventoryIds = [...new Set(rows.map((r) => r.inventory_id))].sort((a, b) => a - b);
  const inventories = await tx.query<{ id: number; name: string; kind: string }>('SELECT id, name, kind FROM inventories WHERE id = ANY($1::int[]) ORDER BY id', [inventoryIds]);
  const denied: Record<string, string> = {};
  for (const inv of inventories) if (!(await mayAdministerInventory(ctx, tx, inv.id))) denied[inv.name] = 'Lack permissions to delete hosts from this inventory.';
  if (Object.keys(denied).length) throw new ApiError(403, { inventories: denied });
  const notManual = Object.fromEntries(inventories.filter((i) => i.kind !== '').map((i) => [i.name, 'Hosts can only be deleted from manual inventories.']));
  if (Object.keys(notManual).length) throw new ApiError(400, { inventories: notManual });

  await tx.query('DELETE FROM hosts WHERE id = ANY($1::int[])', [rows.map((r) => r.id)]);
  for (const inventoryId of inventoryIds) {
    await refreshInventoryComputedFields(tx, ctx.service.resources, inventoryId);
    const deleted = rows.filter((r) => r.inventory_id === inventoryId).map((r) => ({ host_id: r.id, host_name: r.name }));
    await recordActivity(tx, ctx, { operation: 'update', object1: 'inventory', object1Id: inventoryId, changes: { deleted_hosts: deleted } });
  }
  return { hosts: Object.fromEntries(rows.map((r) => [String(r.id), `The host ${r.name} was deleted`])) };
}
