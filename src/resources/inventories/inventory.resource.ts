import { boolean, choice, integer, ref, text, type Field } from '../../api/fields.ts';
import { ApiError, ValidationError } from '../../api/errors.ts';
import { defineResource, type Values } from '../../api/resource.ts';
import { mayCreateCopy } from '../../api/copy-route.ts';
import { inventoryCopy } from './inventory-copy.ts';
import type { Relation } from '../../api/relations.ts';
import { reverse } from '../../api/relations.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { objectRoles } from '../../rbac/relations.ts';
import { refreshInventoryComputedFields, refreshSmartInventoriesOf, refreshSmartInventory } from '../../inventory/computed-fields.ts';
import { INVENTORY_HOSTS, INVENTORY_ROOT_GROUPS } from '../../inventory/group-graph.ts';
import { HostFilterError } from '../../inventory/host-filter.ts';
import { variablesField } from '../../inventory/variables.ts';
import { attachedLabels } from '../labels/attached-labels.ts';
import { assertInventoryAdmin, inventoryAccess } from './inventory-access.ts';
import { inputInventories } from './input-inventories.ts';
import { ensureConstructedSource } from './constructed-source.ts';
import type { InventoryRow } from '../../db/tables.ts';

const computed = (helpText: string, field: (o: { readOnly: true; helpText: string }) => Field = integer) => field({ readOnly: true, helpText });

/** host_filter: null for inventories without one (as AWX shows it), stored as ''. */
function hostFilterField(): Field {
  const base = text({ helpText: 'Filter that will be applied to the hosts of this inventory.' });
  return {
    ...base,
    nullable: true,
    parse: (value) => (value === null ? '' : base.parse(value)),
    serialize: (value) => (value === '' || value === null ? null : value),
  };
}

/**
 * kind: null leaves it as it is (AWX's InventoryDetail.update reads a null kind as not given; the
 * awx.awx inventory module sends null for a kind it is not told), '' on create.
 */
function kindField(): Field {
  const base = choice(
    [
      ['', 'Hosts have a direct link to this inventory.'],
      ['smart', 'Hosts for inventory generated using the host_filter property.'],
      ['constructed', 'Parse list of source inventories with the constructed inventory plugin.'],
    ],
    { default: '', helpText: 'Kind of inventory being represented.' },
  );
  // Not nullable where it is shown: only a body may hold null.
  return {
    ...base,
    nullMeans: undefined,
    valueSchema: { type: ['string', 'null'], enum: ['', 'smart', 'constructed', null] },
    parse: (value) => (value === null ? null : base.parse(value)),
  };
}

/** The hosts an inventory holds (for a smart inventory, those its filter selects); POST creates one in it. */
const inventoryHosts: Relation = {
  target: 'host',
  from: INVENTORY_HOSTS,
  parentColumn: 'inventory_host.inventory_id',
  targetColumn: 'inventory_host.host_id',
  attachable: false,
  createWith: 'inventory',
};

const rootGroups: Relation = {
  target: 'group',
  from: INVENTORY_ROOT_GROUPS,
  parentColumn: 'root_group.inventory_id',
  targetColumn: 'root_group.id',
  attachable: false,
  createWith: 'inventory',
};

/** kind and host_filter go together: a smart inventory needs a valid filter, other inventories have none. */
async function checkKindAndFilter(tx: Queryable, values: Values, existing: Row | null): Promise<void> {
  if (values.kind === null) {
    if (existing) delete values.kind;
    else values.kind = '';
  }
  const kind = (values.kind ?? existing?.kind ?? '') as string;
  if (existing && kind !== existing.kind && (kind === 'constructed' || existing.kind === 'constructed')) {
    throw new ApiError(405, { error: 'You cannot turn a regular inventory into a "smart" or "constructed" inventory.' });
  }
  const filter = (values.host_filter ?? existing?.host_filter ?? '') as string;
  if (kind === 'smart' && filter.trim() === '') throw ValidationError.field('host_filter', 'Smart inventories must specify host_filter');
  if (kind !== 'smart' && filter !== '') throw ValidationError.field('host_filter', 'Only smart inventories may have a host_filter.');
  if (existing && kind === 'smart' && existing.kind !== 'smart') {
    const [held] = await tx.query(
      'SELECT 1 FROM hosts WHERE inventory_id = $1 UNION ALL SELECT 1 FROM groups WHERE inventory_id = $1 LIMIT 1',
      [existing.id],
    );
    if (held) throw ValidationError.field('kind', 'An inventory with hosts or groups cannot become a smart inventory.');
  }
}

export const inventories = defineResource<InventoryRow>({
  name: 'inventory',
  plural: 'inventories',
  table: 'inventories',
  label: 'Inventory List',
  description: 'Inventories hold the hosts and groups jobs run against.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    organization: ref('organization', { required: true, helpText: 'Organization containing this inventory.' }),
    kind: kindField(),
    host_filter: hostFilterField(),
    variables: variablesField({ helpText: 'Inventory variables in JSON or YAML format.' }),
    has_active_failures: computed('This field is deprecated and will be removed in a future release. Flag indicating whether any hosts in this inventory have failed.', boolean),
    total_hosts: computed('This field is deprecated and will be removed in a future release. Total number of hosts in this inventory.'),
    hosts_with_active_failures: computed('This field is deprecated and will be removed in a future release. Number of hosts in this inventory with active failures.'),
    total_groups: computed('This field is deprecated and will be removed in a future release. Total number of groups in this inventory.'),
    has_inventory_sources: computed('This field is deprecated and will be removed in a future release. Flag indicating whether this inventory has any external inventory sources.', boolean),
    total_inventory_sources: computed('Total number of external inventory sources configured within this inventory.'),
    inventory_sources_with_failures: computed('Number of external inventory sources in this inventory with failures.'),
    pending_deletion: computed('Flag indicating the inventory is being deleted.', boolean),
    prevent_instance_group_fallback: boolean({
      helpText: 'If enabled, the inventory will prevent adding any organization instance groups to the list of preferred instances groups to run associated job templates on.',
    }),
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description'],
  ordering: 'name',
  unique: [['name', 'organization']],
  summaryColumns: [
    'id', 'name', 'description', 'has_active_failures', 'total_hosts', 'hosts_with_active_failures', 'total_groups',
    'has_inventory_sources', 'total_inventory_sources', 'inventory_sources_with_failures', 'organization_id', 'kind',
  ],
  related: {
    hosts: inventoryHosts,
    groups: reverse('group', 'groups', 'inventory_id', 'inventory'),
    root_groups: rootGroups,
    inventory_sources: reverse('inventory_source', 'inventory_sources', 'inventory_id', 'inventory'),
    job_templates: reverse('job_template', 'job_templates', 'inventory_id'),
    input_inventories: inputInventories,
    labels: attachedLabels({ name: 'inventory', table: 'inventory_labels', column: 'inventory_id', assertAdmin: assertInventoryAdmin }),
    object_roles: objectRoles('inventory'),
  },
  roles: {
    admin_role: { name: 'Admin', description: 'Can manage all aspects of the inventory', parents: ['organization.inventory_admin_role'] },
    update_role: { name: 'Update', description: 'May update the inventory', parents: ['admin_role'] },
    adhoc_role: { name: 'Ad Hoc', description: 'May run ad hoc commands on the inventory', parents: ['admin_role'] },
    use_role: { name: 'Use', description: 'Can use the inventory in a job template', parents: ['adhoc_role'] },
    read_role: { name: 'Read', description: 'May view settings for the inventory', parents: ['organization.auditor_role', 'update_role', 'use_role', 'admin_role'] },
  },
  access: { ...inventoryAccess, actions: { ...inventoryAccess.actions, copy: mayCreateCopy('inventory', inventoryCopy) } },
  hooks: {
    beforeWrite: (tx, _ctx, values, existing) => checkKindAndFilter(tx, values, existing),
    async afterWrite(tx, ctx, row, existing) {
      if (row.kind === 'constructed') await ensureConstructedSource(tx, row);
      const changed = (column: 'kind' | 'host_filter' | 'organization_id') => !existing || existing[column] !== row[column];
      if (!(['kind', 'host_filter', 'organization_id'] as const).some(changed)) return;
      if (row.kind === 'smart') {
        try {
          await refreshSmartInventory(tx, ctx.service.resources, row, true);
        } catch (err) {
          if (err instanceof HostFilterError) throw ValidationError.field('host_filter', err.message);
          throw err;
        }
      } else await refreshInventoryComputedFields(tx, ctx.service.resources, row.id);
      // Its hosts left the smart inventories of the organization it came from.
      if (existing && changed('organization_id')) await refreshSmartInventoriesOf(tx, ctx.service.resources, existing.organization_id);
      // The response shows the counts just made.
      Object.assign(row, (await tx.query('SELECT * FROM inventories WHERE id = $1', [row.id]))[0]);
    },
    async beforeDelete(tx, ctx, row) {
      // Its hosts go first, so the organization's smart inventories can be counted without them.
      await tx.query('DELETE FROM hosts WHERE inventory_id = $1', [row.id]);
      if (row.kind !== 'smart') await refreshSmartInventoriesOf(tx, ctx.service.resources, row.organization_id);
    },
  },
  decorate(row, out) {
    const base = `/api/v2/inventories/${row.id}/`;
    Object.assign(out.related, { variable_data: `${base}variable_data/`, script: `${base}script/`, tree: `${base}tree/` });
    (out.related as Record<string, string>).update_inventory_sources = `${base}update_inventory_sources/`;
    (out.related as Record<string, string>).instance_groups = `${base}instance_groups/`;
    (out.related as Record<string, string>).ad_hoc_commands = `${base}ad_hoc_commands/`;
    (out.related as Record<string, string>).copy = `${base}copy/`;
    if (row.kind === 'constructed') (out.related as Record<string, string>).constructed_url = `/api/v2/constructed_inventories/${row.id}/`;
    else delete (out.related as Record<string, string>).input_inventories;
  },
});
