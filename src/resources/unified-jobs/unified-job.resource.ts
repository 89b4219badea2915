import { seesEverything, objectsWithRole } from '../../api/access.ts';
import { boolean, datetime, ref } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { reverse } from '../../api/relations.ts';
import type { RequestContext } from '../../api/context.ts';
import type { Params } from '../../api/sql.ts';
import { runFields, runLinks } from '../../runs/run-fields.ts';
import type { UnifiedJobRow, UnifiedJobTemplateRow } from '../../db/tables.ts';

/**
 * Runs of every kind the caller may see, each kind's as its own list shows them (AWX's
 * UnifiedJobAccess: the union of each kind's access), so that no run is listed whose own page the
 * caller is refused. A kind whose list the caller is refused (system jobs) is left out.
 */
export function visibleRuns(ctx: RequestContext, alias: string, params: Params): string | null {
  if (seesEverything(ctx)) return null;
  const { resources } = ctx.service;
  const kinds = resources.get('unified_job').types.flatMap((type) => {
    const kind = resources.find(type);
    if (!kind || kind.access.listRefusal?.(ctx)) return [];
    const own = kind.access.visible(ctx, alias, params);
    return [`(${alias}.kind = ${params.add(type)}${own === null ? '' : ` AND ${own}`})`];
  });
  return kinds.length ? `(${kinds.join(' OR ')})` : 'false';
}

/** The composition's vocabulary entry: RunKinds.unifiedJobTypes() of the service (composeServices). */
export const UNIFIED_JOB_TYPES = 'unified job types';

const readOnly = { canCreate: () => false, canChange: () => false, canDelete: () => false, canAttach: () => false };

/** /unified_jobs/: every run kind in one list, each row with its own type and URL; ?type= filters. Its types are the composed kinds'. */
export const unifiedJobs = defineResource<UnifiedJobRow>({
  name: 'unified_job',
  table: 'unified_jobs',
  label: 'Unified Job List',
  typeColumn: 'kind',
  composedTypes: UNIFIED_JOB_TYPES,
  operations: { create: false, update: false, delete: false },
  ordering: '-id',
  search: ['name', 'description'],
  fields: { ...runFields(), unified_job_template: ref('unified_job_template', { readOnly: true }) },
  links: runLinks(),
  summaryColumns: ['id', 'name', 'description', 'status', 'failed'],
  // The workflow job node a run was started for: awxkit follows a workflow's runs with
  // ?unified_job_node__workflow_job=<id>.
  related: { unified_job_node: reverse('workflow_job_node', 'workflow_job_nodes', 'job_id') },
  access: { visible: visibleRuns, ...readOnly },
});

/** /unified_job_templates/: every template kind in one list. */
export const unifiedJobTemplates = defineResource<UnifiedJobTemplateRow & { id: number }>({
  name: 'unified_job_template',
  table: 'unified_job_templates',
  label: 'Unified Job Template List',
  typeColumn: 'kind',
  types: ['project', 'inventory_source', 'job_template', 'system_job_template', 'workflow_job_template', 'workflow_approval_template'],
  operations: { create: false, update: false, delete: false },
  ordering: 'name',
  search: ['name', 'description'],
  fields: {
    ...Object.fromEntries(Object.entries(runFields()).filter(([name]) => ['name', 'description', 'status', 'organization'].includes(name))),
    last_job: ref('unified_job', { readOnly: true }),
    last_job_run: datetime({ readOnly: true }),
    last_job_failed: boolean({ readOnly: true }),
    current_job: ref('unified_job', { readOnly: true }),
  },
  access: {
    visible: (ctx, alias, params) => {
      if (seesEverything(ctx)) return null;
      const me = params.add(ctx.user?.id ?? 0);
      return `((${alias}.kind = 'project' AND ${alias}.id IN (${objectsWithRole('project', ['read_role'], me)}))
        OR (${alias}.kind = 'inventory_source' AND ${alias}.id IN (SELECT s.id FROM inventory_sources s WHERE s.inventory_id IN (${objectsWithRole('inventory', ['read_role'], me)})))
        OR (${alias}.kind = 'job_template' AND ${alias}.id IN (${objectsWithRole('job_template', ['read_role'], me)}))
        OR (${alias}.kind = 'workflow_job_template' AND ${alias}.id IN (${objectsWithRole('workflow_job_template', ['read_role'], me)}))
        OR (${alias}.kind = 'workflow_approval_template' AND ${alias}.id IN (SELECT n.unified_job_template_id FROM workflow_job_template_nodes n
          WHERE n.workflow_job_template_id IN (${objectsWithRole('workflow_job_template', ['read_role'], me)}))))`;
    },
    ...readOnly,
  },
});
