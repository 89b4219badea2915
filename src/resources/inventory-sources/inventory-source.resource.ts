import { conflict } from '../../api/errors.ts';
import { boolean, choice, datetime, integer, ref, text } from '../../api/fields.ts';
import { INVENTORY_VERBOSITY_CHOICES } from '../../runs/run-fields.ts';
import type { Relation } from '../../api/relations.ts';
import { reverse } from '../../api/relations.ts';
import { defineResource } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { RequestContext } from '../../api/context.ts';
import { runKindsOf } from '../../runs/run-services.ts';
import type { InventorySourceRow, UnifiedJobRow } from '../../db/tables.ts';
import { refreshInventoryComputedFields } from '../../inventory/computed-fields.ts';
import { variablesField } from '../../inventory/variables.ts';
import { inventorySourceAccess } from './inventory-source-access.ts';
import { SOURCE_CHOICES } from './source-kinds.ts';
import { checkSource } from './source-validation.ts';
import { optionField } from '../../ansible/option-values.ts';
import { adminOfSourceInventory, notificationTemplateLists } from '../notification-templates/attachments.ts';

const SOURCE_STATUSES = ['new', 'pending', 'waiting', 'running', 'successful', 'failed', 'error', 'canceled', 'never updated', 'none'];

/** Hosts or groups a source brought in (read only: they come and go with its updates). */
const broughtIn = (target: 'host' | 'group'): Relation => ({
  target,
  from: `${target}_inventory_sources`,
  parentColumn: 'inventory_source_id',
  targetColumn: `${target}_id`,
  attachable: false,
});

/** What a source shows of its last and current updates. */
type UpdateSummaryRow = Pick<UnifiedJobRow, 'id' | 'name' | 'description' | 'finished' | 'status' | 'failed'>;

const jobSummary = (job: UpdateSummaryRow | undefined) =>
  job && { id: job.id, name: job.name, description: job.description, finished: job.finished, status: job.status, failed: job.failed, license_error: false };

/** Refused while an update of the source (a run of the kinds updating inventories) is open. */
async function refreshAfterDelete(tx: Queryable, ctx: RequestContext, row: InventorySourceRow): Promise<void> {
  const resources = ctx.service.resources;
  const [active] = await tx.query<{ id: number; kind: string }>(
    `SELECT id, kind FROM unified_jobs WHERE kind = ANY($2::text[]) AND inventory_source_id = $1 AND status IN ('new', 'pending', 'waiting', 'running') ORDER BY id LIMIT 1`,
    [row.id, runKindsOf(ctx.service).updateKindsOf('inventory_id')],
  );
  if (active) throw conflict('Resource is being used by running jobs.', { active_jobs: [{ type: active.kind, id: active.id }] });
  // The row goes now, not after this hook, so the inventory's counts and its hosts' links can be recomputed without it.
  await tx.query('DELETE FROM inventory_sources WHERE id = $1', [row.id]);
  await refreshInventoryComputedFields(tx, resources, row.inventory_id);
}

export const inventorySources = defineResource<InventorySourceRow>({
  name: 'inventory_source',
  table: 'inventory_sources',
  label: 'Inventory Source List',
  description: 'Where an inventory gets hosts and groups from: a project, inventory text or script, or a cloud.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    inventory: ref('inventory', { required: true, writeOnce: true }),
    source: choice(SOURCE_CHOICES, { required: true }),
    source_path: text({ maxLength: 1024 }),
    source_vars: variablesField({ helpText: 'Inventory source variables in YAML or JSON format.' }),
    scm_branch: text({ maxLength: 1024, helpText: 'Inventory source SCM branch. Project default used if blank. Only allowed if project allow_override field is set to true.' }),
    credential: ref('credential', { helpText: 'Cloud credential to use for inventory updates.' }),
    enabled_var: text({ helpText: 'Retrieve the enabled state from the given dict of host variables. The enabled variable may be specified as "foo.bar", in which case the lookup will traverse into nested dicts, equivalent to: from_dict.get("foo", {}).get("bar", default)' }),
    enabled_value: text({ helpText: 'Only used when enabled_var is set. Value when the host is considered enabled.' }),
    host_filter: text({ helpText: 'Regex where only matching hosts will be imported.' }),
    overwrite: boolean({ helpText: 'Overwrite local groups and hosts from remote inventory source.' }),
    overwrite_vars: boolean({ helpText: 'Overwrite local variables from remote inventory source.' }),
    timeout: integer({ default: 0, min: 0, helpText: 'The amount of time (in seconds) to run before the task is canceled.' }),
    verbosity: integer({ default: 1, choices: INVENTORY_VERBOSITY_CHOICES, helpText: '0 (WARNING), 1 (INFO), 2 (DEBUG)' }),
    limit: optionField('pattern', { helpText: 'Enter host, group or pattern match' }),
    last_job_run: datetime({ readOnly: true }),
    last_job_failed: boolean({ readOnly: true }),
    status: choice(SOURCE_STATUSES, { readOnly: true }),
    execution_environment: ref('execution_environment', { helpText: 'The container image to be used for execution.' }),
    update_on_launch: boolean(),
    update_cache_timeout: integer({ default: 0, min: 0 }),
    source_project: ref('project', { helpText: 'Project containing inventory file used as source.' }),
    last_update_failed: boolean({ readOnly: true }),
    last_updated: datetime({ readOnly: true }),
  },
  namedUrl: ['name', 'inventory'],
  search: ['name', 'description', 'source'],
  ordering: 'name',
  unique: [['inventory', 'name']],
  summaryColumns: ['id', 'name', 'description', 'source', 'last_updated', 'status'],
  related: {
    inventory_updates: reverse('inventory_update', 'inventory_updates', 'inventory_source_id'),
    schedules: reverse('schedule', 'schedules', 'unified_job_template_id', 'unified_job_template'),
    hosts: broughtIn('host'),
    groups: broughtIn('group'),
    // The source's one credential, as a list (AWX shows credentials here); set it through `credential`.
    credentials: { target: 'credential', from: 'inventory_sources', parentColumn: 'id', targetColumn: 'credential_id', attachable: false },
    ...notificationTemplateLists({ owner: 'unified_job_template', mayAttachTo: adminOfSourceInventory }),
  },
  access: inventorySourceAccess,
  hooks: {
    beforeWrite: checkSource,
    afterWrite: async (tx, ctx, row, existing) => {
      if (!existing) await refreshInventoryComputedFields(tx, ctx.service.resources, row.inventory_id);
    },
    beforeDelete: (tx, ctx, row) => refreshAfterDelete(tx, ctx, row),
  },
  prepare: async (db, rows) => {
    const ids = rows.flatMap((r) => [r.last_job_id, r.current_job_id]).filter((id): id is number => typeof id === 'number');
    const jobs = ids.length ? await db.query<UpdateSummaryRow>('SELECT id, name, description, finished, status, failed FROM unified_jobs WHERE id = ANY($1::integer[])', [ids]) : [];
    return new Map(jobs.map((j) => [j.id, j]));
  },
  decorate: (row, out, prepared) => {
    const jobs = prepared as Map<number, UpdateSummaryRow> | undefined;
    const base = `/api/v2/inventory_sources/${row.id}/`;
    const related = out.related as Record<string, string>;
    related.update = `${base}update/`;
    const summary = out.summary_fields as Record<string, unknown>;
    for (const [column, names] of [['last_job_id', ['last_job', 'last_update']], ['current_job_id', ['current_job', 'current_update']]] as const) {
      const job = typeof row[column] === 'number' ? jobs?.get(row[column]) : undefined;
      if (!job) continue;
      for (const name of names) {
        related[name] = `/api/v2/inventory_updates/${job.id}/`;
        summary[name] = jobSummary(job);
      }
    }
    out.next_job_run = null;
    out.custom_virtualenv = null;
  },
});
