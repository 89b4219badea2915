import { integer, text } from '../api/fields.ts';
import { defineResource, type Resource } from '../api/resource.ts';

/**
 * The events of one run kind as objects of their own (job_event, ad_hoc_command_event), for the
 * routes on one event: visible to whoever sees the event's run, never changed through the API.
 * Lists of events go through the run (src/runs/run-routes.ts) and the unified_job_event resource.
 */
export function defineEventResource(run: Resource): Resource {
  return defineResource({
    name: `${run.name}_event`,
    table: `${run.name}_events`,
    label: `${run.label.replace(/ List$/, '')} Event List`,
    topLevel: false,
    untracked: true,
    operations: { create: false, update: false, delete: false },
    ordering: 'counter',
    fields: { event: text({ readOnly: true }), counter: integer({ readOnly: true }) },
    access: {
      visible: (ctx, alias, params) => {
        const runVisible = run.access.visible(ctx, 'r', params);
        return runVisible ? `${alias}.unified_job_id IN (SELECT r.id FROM ${run.table} r WHERE ${runVisible})` : null;
      },
      canCreate: () => false,
      canChange: () => false,
      canDelete: () => false,
      canAttach: () => false,
    },
  });
}
