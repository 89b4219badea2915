import { ref, text } from '../../api/fields.ts';
import { ValidationError } from '../../api/errors.ts';
import { defineResource, type Values } from '../../api/resource.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { refreshInventoryComputedFields } from '../../inventory/computed-fields.ts';
import { GROUP_ALL_HOSTS, GROUP_POTENTIAL_CHILDREN, moveMembersToParents } from '../../inventory/group-graph.ts';
import { variablesField } from '../../inventory/variables.ts';
import { inventoryMemberAccess } from '../inventories/inventory-access.ts';
import { groupChildren, groupHosts } from './group-relations.ts';
import type { GroupRow } from '../../db/tables.ts';

/** Names Ansible keeps for itself in a JSON inventory. */
const RESERVED_NAMES = new Set(['all', '_meta']);

async function checkGroup(tx: Queryable, values: Values, existing: Row | null): Promise<void> {
  const inventoryId = (values.inventory ?? existing?.inventory_id) as number;
  if (typeof values.name === 'string' && RESERVED_NAMES.has(values.name)) throw ValidationError.field('name', 'Invalid group name.');
  if (!existing) {
    const [inventory] = await tx.query('SELECT kind FROM inventories WHERE id = $1', [inventoryId]);
    if (inventory.kind !== '') throw ValidationError.field('inventory', 'Cannot create Group for Smart or Constructed Inventories');
  }
  const [host] = await tx.query('SELECT 1 FROM hosts WHERE inventory_id = $1 AND name = $2', [inventoryId, values.name ?? existing?.name]);
  if (host) throw new ValidationError({ __all__: ['A Host with that name already exists.'] });
}

export const groups = defineResource<GroupRow>({
  name: 'group',
  table: 'groups',
  label: 'Group List',
  description: 'Groups gather hosts of an inventory, and nest.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    inventory: ref('inventory', { required: true }),
    variables: variablesField({ helpText: 'Group variables in JSON or YAML format.' }),
  },
  namedUrl: ['name', 'inventory'],
  search: ['name', 'description'],
  ordering: 'name',
  unique: [['name', 'inventory']],
  related: {
    hosts: groupHosts,
    children: groupChildren,
    parents: { target: 'group', from: 'group_children', parentColumn: 'child_id', targetColumn: 'parent_id', attachable: false },
    all_hosts: { target: 'host', from: GROUP_ALL_HOSTS, parentColumn: 'all_hosts_group.id', targetColumn: 'group_all_host.host_id', attachable: false },
    potential_children: {
      target: 'group',
      from: GROUP_POTENTIAL_CHILDREN,
      parentColumn: 'potential_parent.id',
      targetColumn: 'potential_child.id',
      attachable: false,
    },
    // The inventory sources whose syncs produced the group.
    inventory_sources: { target: 'inventory_source', from: 'group_inventory_sources', parentColumn: 'group_id', targetColumn: 'inventory_source_id', attachable: false },
  },
  access: inventoryMemberAccess('group'),
  hooks: {
    beforeWrite: (tx, _ctx, values, existing) => checkGroup(tx, values, existing),
    afterWrite: (tx, ctx, row) => refreshInventoryComputedFields(tx, ctx.service.resources, row.inventory_id),
    async beforeDelete(tx, ctx, row) {
      // As AWX: the group's hosts and children go to each of its parents. The row goes here so the
      // inventory is counted without it in the same transaction.
      await moveMembersToParents(tx, row.id);
      await tx.query('DELETE FROM groups WHERE id = $1', [row.id]);
      await refreshInventoryComputedFields(tx, ctx.service.resources, row.inventory_id);
    },
  },
  decorate(row, out) {
    out.related.variable_data = `/api/v2/groups/${row.id}/variable_data/`;
    out.related.ad_hoc_commands = `/api/v2/groups/${row.id}/ad_hoc_commands/`;
    out.related.job_events = `/api/v2/groups/${row.id}/job_events/`;
    out.related.job_host_summaries = `/api/v2/groups/${row.id}/job_host_summaries/`;
  },
});
