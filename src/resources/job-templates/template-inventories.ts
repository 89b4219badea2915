/**
 * /job_templates/{id}/inventories/: the inventories a template's jobs run against besides its
 * primary `inventory`, in the order attached (beyond AWX, asked for in ansible/awx#412;
 * docs/job-templates.md, "Several inventories"). The caller administers the template and may use
 * each inventory attached, as for the primary one; a detach needs only to see it.
 */
import { hasObjectRole } from '../../api/access.ts';
import { ApiError, forbidden } from '../../api/errors.ts';
import { isVisible } from '../../api/list.ts';
import { orderedJoinTable, type Relation } from '../../api/relations.ts';
import type { Queryable } from '../../db/database.ts';
import { assertTemplateAdmin } from './job-template-access.ts';

/** How many inventories a template or a launch may add to the primary one. */
export const MAX_EXTRA_INVENTORIES = 20;

export const templateInventories: Relation = {
  ...orderedJoinTable('inventory', 'job_template_inventories', 'job_template_id', 'inventory_id'),
  association: 'inventories',
  async authorize(ctx, tx, templateId, inventoryId, detach) {
    await assertTemplateAdmin(ctx, tx, templateId);
    if (!(await isVisible(tx, ctx, ctx.service.resources.get('inventory'), inventoryId))) throw forbidden();
    if (detach) return;
    if (!(await hasObjectRole(ctx, tx, 'inventory', inventoryId, 'use_role'))) throw forbidden('You do not have permission to use this inventory.');
    const [template] = await tx.query<{ inventory_id: number | null; extra: number }>(
      'SELECT inventory_id, (SELECT count(*)::int FROM job_template_inventories WHERE job_template_id = $1) AS extra FROM job_templates WHERE id = $1',
      [templateId],
    );
    if (template?.inventory_id === inventoryId) throw new ApiError(400, { error: 'This inventory is already the primary inventory of the job template.' });
    if ((template?.extra ?? 0) >= MAX_EXTRA_INVENTORIES) {
      throw new ApiError(400, { error: `A job template may have at most ${MAX_EXTRA_INVENTORIES} inventories besides its primary one.` });
    }
  },
};

/** The extra inventories of a template, in their order. */
export async function templateInventoryIds(db: Queryable, templateId: number): Promise<number[]> {
  const rows = await db.query<{ inventory_id: number }>(
    'SELECT inventory_id FROM job_template_inventories WHERE job_template_id = $1 ORDER BY position, inventory_id',
    [templateId],
  );
  return rows.map((r) => r.inventory_id);
}

/** The extra inventories a job ran against, in their order. */
export async function jobInventoryIds(db: Queryable, jobId: number): Promise<number[]> {
  const rows = await db.query<{ inventory_id: number }>('SELECT inventory_id FROM job_inventories WHERE job_id = $1 ORDER BY position, inventory_id', [jobId]);
  return rows.map((r) => r.inventory_id);
}
