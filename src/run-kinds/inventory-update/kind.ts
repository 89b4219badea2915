import type { RunKind } from '../../runs/run-kind.ts';
import { refreshInventoryComputedFields } from '../../inventory/computed-fields.ts';
import { inventoryUpdates } from './inventory-update.resource.ts';
import { INVENTORY_UPDATE, inventoryUpdateLauncher, scheduledInventoryUpdateLauncher, workflowNodeInventoryUpdateLauncher } from './queue.ts';
import { runInventoryUpdate } from './update-runner.ts';
import { inventoryDependencies } from './dependencies.ts';

/** Inventory updates: an inventory source imported with ansible-inventory, started by update/ or a job's dependency. */
export const inventoryUpdateKind: RunKind = {
  ...INVENTORY_UPDATE,
  resource: inventoryUpdates,
  unifiedJobsPosition: 2,
  dashboardJobType: 'inv_sync',
  run: runInventoryUpdate,
  defaultTimeoutSetting: 'DEFAULT_INVENTORY_UPDATE_TIMEOUT',
  // The source's status just changed: the inventory's counts of sources with failures follow.
  // (An update is deleted with its source, and a source with its inventory: a stored update has one.)
  afterFinish: (tx, job, resources) => refreshInventoryComputedFields(tx, resources, job.inventory_id!),
  routes: [inventoryUpdates.runRoutes],
  messages: { friendly: 'Inventory Update', ui: 'inventory' },
  cleanup: { option: 'inventory-updates', label: 'inventory updates' },
  // Lines of ansible-inventory's output: all verbose, none failed or changed (AWX's InventoryUpdateEventSerializer).
  events: {
    fields: ['event', 'counter', 'event_display', 'event_data', 'failed', 'changed', 'uuid', 'stdout', 'start_line', 'end_line', 'verbosity', 'inventory_update'],
    playbook: false,
    host: false,
    children: false,
    fixed: { event: 'verbose', event_display: 'verbose', failed: false, changed: false },
  },
  launchers: { manual: inventoryUpdateLauncher, schedule: scheduledInventoryUpdateLauncher, workflowNode: workflowNodeInventoryUpdateLauncher },
  templateAction: 'update',
  update: { of: 'inventory_id', dependencies: inventoryDependencies },
};
