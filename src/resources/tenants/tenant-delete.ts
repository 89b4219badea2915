/**
 * Deleting a tenant (docs/tenants.md#deleting-a-tenant): refused while any run of its organization,
 * or of another on what it owns, is active; otherwise its organization and everything in it go in one transaction, each object
 * with its roles and its activity stream record, and the tenant's own record of the deletion.
 * Project checkouts are removed from disk after the commit.
 */
import { rm } from 'node:fs/promises';
import { recordActivity } from '../../activity/record.ts';
import type { RequestContext } from '../../api/context.ts';
import { loadRow, removeObject } from '../../api/crud.ts';
import { ApiError } from '../../api/errors.ts';
import type { Database, Queryable, ResourceRow } from '../../db/database.ts';
import type { TenantRow, UserRow } from '../../db/tables.ts';
import { ACTIVE_STATUSES } from '../../runs/lifecycle.ts';
import { tenantSnapshot } from './provision.ts';
import { projectDirectories, RUNS_OF_ORGANIZATION, RUNS_USING_ORGANIZATION } from './usage.ts';

/**
 * What an organization owns beyond what its own deletion takes (teams, applications, projects,
 * inventories, credentials, execution environments): each removed as its own DELETE would, with
 * its roles and record. Templates, whose organization would otherwise only be unset, come first.
 */
const OWNED: readonly { resource: string; where: string }[] = [
  { resource: 'service_catalog_item', where: 'organization_id = $1' },
  // Approval templates belong to the nodes of the organization's workflows, which would otherwise only forget them.
  {
    resource: 'workflow_approval_template',
    where: `id IN (SELECT n.unified_job_template_id FROM workflow_job_template_nodes n
      JOIN workflow_job_templates w ON w.id = n.workflow_job_template_id WHERE w.organization_id = $1)`,
  },
  { resource: 'workflow_job_template', where: 'organization_id = $1' },
  { resource: 'job_template', where: 'organization_id = $1 OR (organization_id IS NULL AND project_id IN (SELECT id FROM projects WHERE organization_id = $1))' },
  { resource: 'notification_template', where: 'organization_id = $1' },
  { resource: 'event_rule', where: 'organization_id = $1' },
  { resource: 'outbound_webhook', where: 'organization_id = $1' },
  { resource: 'drift_alert_rule', where: 'organization_id = $1' },
  { resource: 'policy', where: 'organization_id = $1' },
  { resource: 'label', where: 'organization_id = $1' },
];

/** What a deletion removed, recorded with it. */
export interface Removed {
  runs: number;
  objects: Record<string, number>;
  admin_user_deleted: boolean;
}

async function removeAll(tx: Queryable, ctx: RequestContext, name: string, where: string, organizationId: number): Promise<number> {
  const resource = ctx.service.resources.find(name);
  if (!resource) return 0;
  const rows = await tx.query<ResourceRow>(`SELECT * FROM ${resource.table} WHERE ${where} ORDER BY id FOR UPDATE`, [organizationId]);
  for (const row of rows) await removeObject(tx, ctx, resource, row);
  return rows.length;
}

/**
 * The admin provisioning made goes too when nothing else holds him: no role left anywhere once the
 * organization's are gone, and neither superuser nor system auditor.
 */
async function removeLoneAdmin(tx: Queryable, ctx: RequestContext, userId: number | null): Promise<boolean> {
  if (userId === null) return false;
  const [user] = await tx.query<UserRow>('SELECT * FROM users WHERE id = $1 FOR UPDATE', [userId]);
  if (!user || user.is_superuser || user.is_system_auditor || user.id === ctx.user?.id) return false;
  if ((await tx.query('SELECT 1 FROM role_users WHERE user_id = $1 LIMIT 1', [userId])).length) return false;
  await removeObject(tx, ctx, ctx.service.resources.get('user'), user);
  return true;
}

/** Deletes the tenant and everything of its organization; answers what went. Throws 409 while runs are active. */
export async function deleteTenant(db: Database, ctx: RequestContext, tenantId: number, projectsRoot: string): Promise<Removed> {
  const { removed, directories } = await db.transaction(async (tx) => {
    const tenant = await loadRow<TenantRow>(tx, ctx.service.resources.get('tenant'), tenantId, true);
    // The quota gate holds this row while it decides a launch: a launch of this tenant is decided before, or not at all.
    await tx.query('SELECT 1 FROM tenant_usage WHERE tenant_id = $1 FOR UPDATE', [tenant.id]);
    const org = tenant.organization_id;
    const organization = await loadRow(tx, ctx.service.resources.get('organization'), org, true);
    const active = await tx.query<{ id: number; kind: string }>(
      `SELECT id, kind FROM unified_jobs WHERE id IN (${RUNS_USING_ORGANIZATION}) AND status = ANY($2::text[]) ORDER BY id`,
      [org, ACTIVE_STATUSES],
    );
    if (active.length) {
      throw new ApiError(409, {
        detail: `The tenant has ${active.length} active run${active.length === 1 ? '' : 's'}; cancel or wait for them before deleting it.`,
        active_jobs: active.map((run) => ({ type: run.kind, id: run.id })),
      });
    }
    const directories = await projectDirectories(tx, projectsRoot, org);
    // Runs with their events and output (their rows' own tables cascade), as cleanup_jobs removes them.
    const runs = await tx.query(`DELETE FROM unified_jobs WHERE id IN (${RUNS_OF_ORGANIZATION}) RETURNING id`, [org]);
    const objects: Record<string, number> = {};
    for (const { resource, where } of OWNED) objects[resource] = await removeAll(tx, ctx, resource, where, org);
    // The tenant first (its usage and quota events cascade): the organization refuses to go while it is a tenant's root.
    await tx.query('DELETE FROM tenants WHERE id = $1', [tenant.id]);
    // The organization takes its teams, projects, inventories (hosts, groups, sources), credentials
    // and the rest by its own deletion.
    await removeObject(tx, ctx, ctx.service.resources.get('organization'), organization);
    const removed: Removed = { runs: runs.length, objects, admin_user_deleted: await removeLoneAdmin(tx, ctx, tenant.admin_user_id) };
    await recordActivity(tx, ctx, {
      operation: 'delete', object1: 'tenant', object1Id: tenant.id,
      changes: { ...tenantSnapshot(tenant), organization_name: organization.name, removed },
    });
    return { removed, directories };
  });
  // After the commit: files of what no longer exists (a failure here leaves files, never rows).
  await Promise.all(directories.map((dir) => rm(dir, { recursive: true, force: true }).catch(() => undefined)));
  return removed;
}
