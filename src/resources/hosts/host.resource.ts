import { boolean, datetime, integer, ref, text } from '../../api/fields.ts';
import { badRequest, ValidationError } from '../../api/errors.ts';
import type { Params } from '../../api/sql.ts';
import type { RequestContext } from '../../api/context.ts';
import { compileHostFilter, HostFilterError } from '../../inventory/host-filter.ts';
import { defineResource, type Values } from '../../api/resource.ts';
import { reverse } from '../../api/relations.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { refreshInventoryComputedFields } from '../../inventory/computed-fields.ts';
import { HOST_ALL_GROUPS } from '../../inventory/group-graph.ts';
import { parseVariables, variablesField } from '../../inventory/variables.ts';
import { inventoryMemberAccess } from '../inventories/inventory-access.ts';
import { hostGroups } from '../groups/group-relations.ts';
import { decorateHost, prepareHosts } from './host-summary.ts';
import type { HostRow } from '../../db/tables.ts';
import { checkHostQuota } from '../../quotas/host-quota.ts';
import { pythonJson } from '../../api/python-json.ts';

/** `web1:2222` names host web1 with ansible_ssh_port 2222 in its variables (as AWX). IPv6 addresses are left alone. */
function splitPort(values: Values, existing: Row | null): void {
  const name = values.name as string;
  if (name.split(':').length !== 2) return;
  const [host, port] = name.split(':');
  const number = /^\d+$/.test(port) ? Number(port) : NaN;
  if (!(number >= 1 && number <= 65535)) throw ValidationError.field('name', `Invalid port specification: ${port}`);
  const vars = parseVariables((values.variables ?? existing?.variables ?? '') as string);
  values.name = host;
  values.variables = pythonJson({ ...vars, ansible_ssh_port: number });
}

async function checkHost(tx: Queryable, ctx: RequestContext, values: Values, existing: Row | null): Promise<void> {
  const inventoryId = (values.inventory ?? existing?.inventory_id) as number;
  if (!existing) {
    const [inventory] = await tx.query('SELECT kind FROM inventories WHERE id = $1', [inventoryId]);
    if (inventory.kind !== '') throw ValidationError.field('inventory', 'Cannot create Host for Smart or Constructed Inventories');
  }
  if (typeof values.name === 'string') {
    const given = values.name;
    splitPort(values, existing);
    // The framework checked the name as given; with the port taken off it is checked again.
    if (values.name !== given) {
      const [taken] = await tx.query('SELECT 1 FROM hosts WHERE inventory_id = $1 AND name = $2 AND id <> $3', [inventoryId, values.name, existing?.id ?? 0]);
      if (taken) throw new ValidationError({ __all__: ['Host with this Name and Inventory already exists.'] });
    }
  }
  const name = values.name ?? existing?.name;
  const [group] = await tx.query('SELECT 1 FROM groups WHERE inventory_id = $1 AND name = $2', [inventoryId, name]);
  if (group) throw new ValidationError({ __all__: ['A Group with that name already exists.'] });
  // Last, so a host refused for another reason is no quota decision. A host never changes inventory.
  if (!existing) await checkHostQuota(tx, ctx, inventoryId);
}

function hostFilterCondition(filter: string, alias: string, params: Params, ctx: RequestContext): string {
  try {
    return compileHostFilter(ctx.service.resources, filter, alias, params);
  } catch (err) {
    if (err instanceof HostFilterError) throw badRequest(err.message);
    throw err;
  }
}

export const hosts = defineResource<HostRow>({
  name: 'host',
  table: 'hosts',
  label: 'Host List',
  description: 'Hosts are the machines of an inventory that jobs run against.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    inventory: ref('inventory', { required: true }),
    enabled: boolean({ default: true, helpText: 'Is this host online and available for running jobs?' }),
    instance_id: text({ maxLength: 1024, helpText: 'The value used by the remote inventory source to uniquely identify the host' }),
    variables: variablesField({ helpText: 'Host variables in JSON or YAML format.' }),
    has_active_failures: boolean({ readOnly: true, helpText: 'Whether the last job failed for this host.' }),
    has_inventory_sources: boolean({ readOnly: true, helpText: 'Whether an inventory source created or updated this host.' }),
    last_job: integer({ readOnly: true, nullable: true, column: 'last_job_id' }),
    last_job_host_summary: integer({ readOnly: true, nullable: true, column: 'last_job_host_summary_id' }),
    ansible_facts_modified: datetime({ readOnly: true, helpText: 'The date and time ansible_facts was last modified.' }),
  },
  namedUrl: ['name', 'inventory'],
  search: ['name', 'description'],
  ordering: 'name',
  unique: [['name', 'inventory']],
  related: {
    groups: hostGroups,
    all_groups: { target: 'group', from: HOST_ALL_GROUPS, parentColumn: 'all_groups_host.id', targetColumn: 'host_all_group.group_id', attachable: false },
    smart_inventories: { target: 'inventory', from: 'smart_inventory_memberships', parentColumn: 'host_id', targetColumn: 'inventory_id', attachable: false },
    // The inventory sources whose syncs produced the host.
    inventory_sources: { target: 'inventory_source', from: 'host_inventory_sources', parentColumn: 'host_id', targetColumn: 'inventory_source_id', attachable: false },
    // What drift detection recorded of the host (src/drift).
    drift: reverse('drift_detection', 'drift_detections', 'host_id'),
    fact_snapshots: reverse('fact_snapshot', 'host_fact_snapshots', 'host_id'),
  },
  access: inventoryMemberAccess('host'),
  // ?host_filter= selects hosts as a smart inventory's filter does (AWX's HostList).
  queryFilters: { host_filter: hostFilterCondition },
  hooks: {
    beforeWrite: (tx, ctx, values, existing) => checkHost(tx, ctx, values, existing),
    afterWrite: (tx, ctx, row) => refreshInventoryComputedFields(tx, ctx.service.resources, row.inventory_id),
    async beforeDelete(tx, ctx, row) {
      // Deleted here rather than after this hook, so the inventory is counted without it in the same transaction.
      await tx.query('DELETE FROM hosts WHERE id = $1', [row.id]);
      await refreshInventoryComputedFields(tx, ctx.service.resources, row.inventory_id);
    },
  },
  prepare: prepareHosts,
  decorate: decorateHost,
});
