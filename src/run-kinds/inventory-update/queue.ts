import type { RequestContext } from '../../api/context.ts';
import type { Queryable } from '../../db/database.ts';
import { ValidationError } from '../../api/errors.ts';
import { missingInputsProblem } from '../../resources/credentials/credential-use.ts';
import type { InventoryRow, InventorySourceRow, UnifiedJobRow } from '../../db/tables.ts';
import { createRun } from '../../runs/lifecycle.ts';
import type { Launcher } from '../../runs/launch.ts';
import { CLOUD_KINDS } from '../../resources/inventory-sources/source-kinds.ts';

/** What the runs core needs to create an inventory update (the kind itself adds its runner). */
export const INVENTORY_UPDATE = { name: 'inventory_update', templateTable: 'inventory_sources' } as const;

/** Whether a source can be updated at all (AWX's can_update): it needs what its kind reads from. */
export function canUpdateSource(source: Pick<InventorySourceRow, 'source' | 'source_project_id' | 'source_vars' | 'credential_id'>): boolean {
  if (source.source === 'scm') return source.source_project_id !== null;
  if (source.source === 'file') return source.source_vars.trim() !== '';
  if (source.source === 'constructed') return true;
  const cloud = CLOUD_KINDS[source.source];
  return Boolean(cloud && (source.credential_id !== null || cloud.credentialOptional));
}

/** Creates a pending update of the source from its current settings; the dispatcher runs it once the transaction commits. */
export async function queueInventoryUpdate(tx: Queryable, ctx: RequestContext, source: InventorySourceRow, launchType: string): Promise<UnifiedJobRow> {
  return createRun(tx, ctx, INVENTORY_UPDATE, await inventoryUpdateValues(tx, source, launchType));
}

/** An update of the source, read again and locked, with the launch type of its trigger. */
const inventoryUpdateLauncherFor = (launchType: string): Launcher<unknown> => ({
  kind: INVENTORY_UPDATE,
  async plan(tx, _ctx, source) {
    const [locked] = await tx.query<InventorySourceRow>('SELECT * FROM inventory_sources WHERE id = $1 FOR UPDATE', [source!.id]);
    const unusable = await missingInputsProblem(tx, locked.credential_id ? [locked.credential_id] : [], 'Inventory Update');
    if (unusable) throw ValidationError.field('credential', unusable);
    return { values: await inventoryUpdateValues(tx, locked, launchType) };
  },
});

/** An update started from update/ (the caller's update_role was checked). */
export const inventoryUpdateLauncher = inventoryUpdateLauncherFor('manual');
/** An update started by a due schedule of the source. */
export const scheduledInventoryUpdateLauncher = inventoryUpdateLauncherFor('scheduled');
/** An update a workflow node starts: it answers to the workflow, not to a person. */
export const workflowNodeInventoryUpdateLauncher = inventoryUpdateLauncherFor('workflow');

/** The update's columns: the source's settings as they are now. */
async function inventoryUpdateValues(tx: Queryable, source: InventorySourceRow, launchType: string): Promise<Record<string, unknown>> {
  const [inventory] = await tx.query<Pick<InventoryRow, 'name' | 'organization_id'>>('SELECT name, organization_id FROM inventories WHERE id = $1', [source.inventory_id]);
  return {
    // As AWX names them: "<inventory> - <source>".
    name: `${inventory.name} - ${source.name}`,
    description: source.description,
    unified_job_template_id: source.id,
    launch_type: launchType,
    inventory_source_id: source.id,
    inventory_id: source.inventory_id,
    organization_id: inventory.organization_id,
    credential_id: source.credential_id,
    execution_environment_id: source.execution_environment_id,
    source: source.source,
    source_path: source.source_path,
    source_vars: source.source_vars,
    scm_branch: source.scm_branch,
    enabled_var: source.enabled_var,
    enabled_value: source.enabled_value,
    host_filter: source.host_filter,
    overwrite: source.overwrite,
    overwrite_vars: source.overwrite_vars,
    limit: source.limit,
    timeout: source.timeout,
    verbosity: source.verbosity,
  };
}

/**
 * The sources of an inventory a job launch has to update first (AWX's update_on_launch): those
 * whose last update failed, or finished longer than update_cache_timeout seconds ago, and that
 * are not updating already.
 */
export async function sourcesDueOnLaunch(tx: Queryable, inventoryId: number): Promise<InventorySourceRow[]> {
  return tx.query<InventorySourceRow>(
    `SELECT * FROM inventory_sources
     WHERE inventory_id = $1 AND update_on_launch AND current_job_id IS NULL
       AND (last_updated IS NULL OR last_update_failed OR last_updated + make_interval(secs => update_cache_timeout) <= now())
     ORDER BY id`,
    [inventoryId],
  );
}
