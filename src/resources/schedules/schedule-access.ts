/**
 * Who may see and change schedules (AWX's ScheduleAccess): a schedule is visible to those who see
 * its template; creating one needs the template's start action (execute, update); changing or
 * deleting one needs the right to change the template, or having created the schedule and still
 * being allowed to start the template.
 */
import { hasObjectRole, isSuperuser, type AccessPolicy } from '../../api/access.ts';
import type { RequestContext, ResourceSet } from '../../api/context.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable, ResourceRow } from '../../db/database.ts';
import type { ScheduleRow } from '../../db/tables.ts';
import { scheduleKindsOf } from './schedulable.ts';

/** The template row of a unified job template id, with its kind; null when there is none. */
export async function loadTemplate(tx: Queryable, resources: ResourceSet, id: unknown): Promise<{ kind: string; row: ResourceRow } | null> {
  if (typeof id !== 'number') return null;
  const [found] = await tx.query<{ kind: string }>('SELECT kind FROM unified_job_templates WHERE id = $1', [id]);
  if (!found) return null;
  const [row] = await tx.query<ResourceRow>(`SELECT * FROM ${resources.get(found.kind).table} WHERE id = $1`, [id]);
  return row ? { kind: found.kind, row } : null;
}

/** Whether the caller may start the template (launch it, update it), as its own launch route asks. */
export async function mayStart(ctx: RequestContext, tx: Queryable, templateId: unknown): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  const template = await loadTemplate(tx, ctx.service.resources, templateId);
  const kind = template && scheduleKindsOf(ctx.service).get(template.kind);
  if (!template || !kind) return false;
  const action = ctx.service.resources.get(template.kind).access.actions?.[kind.action];
  return Boolean(action && (await action(ctx, tx, template.row)));
}

async function mayChangeTemplate(ctx: RequestContext, tx: Queryable, templateId: unknown): Promise<boolean> {
  const template = await loadTemplate(tx, ctx.service.resources, templateId);
  return Boolean(template && (await ctx.service.resources.get(template.kind).access.canChange(ctx, tx, template.row, {})));
}

/** A prompted inventory needs its use_role (AWX's JobLaunchConfigAccess). */
async function mayUsePrompts(ctx: RequestContext, tx: Queryable, values: Values, existing: ScheduleRow | null): Promise<boolean> {
  if (typeof values.inventory === 'number' && values.inventory !== existing?.inventory_id) {
    const [inventory] = await tx.query('SELECT 1 FROM inventories WHERE id = $1', [values.inventory]);
    if (inventory && !(await hasObjectRole(ctx, tx, 'inventory', values.inventory, 'use_role'))) return false;
  }
  return true;
}

async function mayChange(ctx: RequestContext, tx: Queryable, row: ScheduleRow, values: Values): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (!(await mayUsePrompts(ctx, tx, values, row))) return false;
  const templateId = values.unified_job_template ?? row.unified_job_template_id;
  if (templateId !== row.unified_job_template_id && !(await mayStart(ctx, tx, templateId))) return false;
  if (await mayChangeTemplate(ctx, tx, row.unified_job_template_id)) return true;
  return row.created_by_id === ctx.user?.id && (await mayStart(ctx, tx, row.unified_job_template_id));
}

export const scheduleAccess: AccessPolicy<ScheduleRow> = {
  visible: (ctx, alias, params) => {
    const templates = ctx.service.resources.get('unified_job_template');
    const condition = templates.access.visible(ctx, 'u', params);
    return condition === null ? null : `${alias}.unified_job_template_id IN (SELECT u.id FROM unified_job_templates u WHERE ${condition})`;
  },
  canCreate: async (ctx, tx, values) => {
    if (values.unified_job_template === undefined) return Boolean(ctx.user);
    return (await mayUsePrompts(ctx, tx, values, null)) && mayStart(ctx, tx, values.unified_job_template);
  },
  canChange: (ctx, tx, row, values) => mayChange(ctx, tx, row, values),
  canDelete: (ctx, tx, row) => mayChange(ctx, tx, row, {}),
  canAttach: (ctx, tx, row) => mayChange(ctx, tx, row, {}),
};
