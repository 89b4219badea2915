import { hasObjectRole, hasObjectRoleOnRow, isSuperuser, objectsWithRole, seesEverything } from '../../api/access.ts';
import { addRoutes } from '../../api/extra-routes.ts';
import { forbidden } from '../../api/errors.ts';
import { boolean, choice, json, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { registerRunRoutes } from '../../dispatcher/run-routes.ts';
import { ACTIVE_STATUSES } from '../../dispatcher/unified-jobs.ts';
import { runFields } from '../unified-jobs/run-fields.ts';
import { SOURCE_CHOICES } from '../inventory-sources/source-kinds.ts';

const isActive = (status: string) => (ACTIVE_STATUSES as readonly string[]).includes(status);
const readOnly = { readOnly: true } as const;

/** Inventory updates: one run of an inventory source, kept in unified_jobs and read through the inventory_updates view. */
export const inventoryUpdates = defineResource({
  name: 'inventory_update',
  table: 'inventory_updates',
  label: 'Inventory Update List',
  description: 'Runs of inventory sources: each imports the hosts and groups its source lists.',
  operations: { create: false, update: false },
  ordering: '-id',
  search: ['name', 'description'],
  fields: {
    ...runFields(),
    job_args: text(readOnly),
    job_cwd: text(readOnly),
    job_env: json({ readOnly: true, filterable: false, default: undefined }),
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
  summaryColumns: ['id', 'name', 'description', 'status', 'failed'],
  access: {
    visible: (ctx, alias, params) =>
      seesEverything(ctx) ? null : `${alias}.inventory_id IN (${objectsWithRole('inventory', ['read_role'], params.add(ctx.user?.id ?? 0))})`,
    canCreate: () => false,
    canChange: () => false,
    // As AWX: the inventory's admins delete updates, once finished.
    canDelete: async (ctx, tx, row, page) => !isActive(row.status) && hasObjectRoleOnRow(ctx, tx, 'inventory', 'admin_role', row, page, 'inventory_id'),
    canAttach: () => false,
  },
  hooks: {
    beforeDelete: (_tx, _ctx, row) => {
      if (isActive(row.status)) throw forbidden('Cannot delete a running inventory update.');
    },
  },
  decorate: (row, out) => {
    const base = `/api/v2/inventory_updates/${row.id}/`;
    out.related = {
      ...(out.related as object),
      stdout: `${base}stdout/`,
      events: `${base}events/`,
      cancel: `${base}cancel/`,
      unified_job_template: `/api/v2/inventory_sources/${row.inventory_source_id}/`,
    };
    out.unified_job_template = row.inventory_source_id;
    const creator = (out.summary_fields as Record<string, any>).created_by;
    out.launched_by = creator ? { id: creator.id, name: creator.username, type: 'user', url: `/api/v2/users/${creator.id}/` } : {};
    Object.assign(out, { canceled_on: null, work_unit_id: null, custom_virtualenv: null, instance_group: null, license_error: false, org_host_limit_error: false });
  },
});

addRoutes((app, services) =>
  registerRunRoutes(app, services, inventoryUpdates, {
    // As AWX: the one who started it, and the inventory's admins.
    mayCancel: async (request, svc, run) =>
      isSuperuser(request.ctx) || run.created_by_id === request.ctx.user?.id || hasObjectRole(request.ctx, svc.db, 'inventory', run.inventory_id, 'admin_role'),
  }),
);
