import { boolean, choice, ref, text } from '../../api/fields.ts';
import { defineRunResource } from '../../runs/run-resource.ts';
import { SOURCE_CHOICES } from '../../resources/inventory-sources/source-kinds.ts';

const readOnly = { readOnly: true } as const;

/** Inventory updates: one run of an inventory source, kept in unified_jobs and read through the inventory_updates view. */
export const inventoryUpdates = defineRunResource({
  name: 'inventory_update',
  label: 'Inventory Update List',
  typeLabel: 'Inventory Sync',
  description: 'Runs of inventory sources: each imports the hosts and groups its source lists.',
  fields: {
    source: choice(SOURCE_CHOICES, readOnly),
    source_path: text(readOnly),
    source_vars: text(readOnly),
    scm_branch: text(readOnly),
    credential: ref('credential', readOnly),
    enabled_var: text(readOnly),
    enabled_value: text(readOnly),
    host_filter: text(readOnly),
    overwrite: boolean(readOnly),
    overwrite_vars: boolean(readOnly),
    limit: text(readOnly),
    inventory: ref('inventory', readOnly),
    inventory_source: ref('inventory_source', readOnly),
    source_project_update: ref('project_update', readOnly),
    source_project: ref('project', readOnly),
    scm_revision: text(readOnly),
  },
  owner: { contentType: 'inventory', column: 'inventory_id' },
  // As AWX: the one who started it, and the inventory's admins.
  cancelRole: 'admin_role',
  template: { plural: 'inventory_sources', column: 'inventory_source_id' },
});
