/**
 * PATCH of a tenant (docs/tenants.md#changing-quotas-and-branding): description (its
 * organization's), and any part of quota and branding; every problem in one 400, nothing changed.
 */
import { recordActivity } from '../../activity/record.ts';
import type { RequestContext } from '../../api/context.ts';
import { loadRow, updateObject } from '../../api/crud.ts';
import { readField } from '../../api/read-field.ts';
import type { Database } from '../../db/database.ts';
import type { TenantRow } from '../../db/tables.ts';
import { domainTaken } from './provision.ts';
import { asBodyRefusal, bodyRefused } from './tenant-errors.ts';
import { readBranding, readQuota, type BodyProblem } from './tenant-values.ts';

export async function updateTenant(db: Database, ctx: RequestContext, existing: TenantRow, body: Record<string, unknown>): Promise<TenantRow> {
  const organizations = ctx.service.resources.get('organization');
  const problems: BodyProblem[] = [];
  let description: string | undefined;
  if (body.description !== undefined) {
    const reading = readField(organizations.fields.description, body.description, null);
    if ('problem' in reading) problems.push({ field: 'description', message: reading.problem });
    else if ('value' in reading) description = String(reading.value);
  }
  const quota = readQuota(body.quota, problems);
  const branding = readBranding(body.branding, problems);
  if (branding.custom_domain && (await domainTaken(db, branding.custom_domain, existing.id))) {
    problems.push({ field: 'branding.custom_domain', message: 'Another tenant already uses this domain.' });
  }
  if (problems.length) throw bodyRefused(problems);

  try {
    return await db.transaction(async (tx) => {
      const before = await loadRow<TenantRow>(tx, ctx.service.resources.get('tenant'), existing.id, true);
      if (description !== undefined) {
        const org = await loadRow(tx, organizations, before.organization_id, true);
        if (org.description !== description) await updateObject(tx, ctx, organizations, org, { description });
      }
      const values: Record<string, unknown> = { ...quota, ...branding };
      const changed = Object.keys(values).filter((column) => before[column as keyof TenantRow] !== values[column]);
      if (!changed.length) return before;
      const sets = changed.map((column, i) => `${column} = $${i + 1}`);
      const params = [...changed.map((column) => values[column]), ctx.user && ctx.user.id > 0 ? ctx.user.id : null, before.id];
      const [after] = await tx.query<TenantRow>(
        `UPDATE tenants SET ${sets.join(', ')}, modified = now(), modified_by_id = $${changed.length + 1} WHERE id = $${changed.length + 2} RETURNING *`,
        params,
      );
      const changes = Object.fromEntries(changed.map((column) => [column, [before[column as keyof TenantRow], after[column as keyof TenantRow]]]));
      await recordActivity(tx, ctx, { operation: 'update', object1: 'tenant', object1Id: after.id, changes });
      return after;
    });
  } catch (err) {
    throw asBodyRefusal(err, { description: 'description' });
  }
}
