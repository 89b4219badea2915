/**
 * A tenant's usage recomputed from what exists (docs/tenants.md#usage): its hosts, the jobs and ad
 * hoc commands of its organization still active (what max_concurrent_jobs counts), and its
 * storage: the bytes of its projects' checkouts (and the roles and collections their requirements
 * installed) on disk, and of the output its runs stored.
 */
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Queryable } from '../../db/database.ts';
import { projectDir, requirementsDir, revisionsDir } from '../../projects/paths.ts';
import { ACTIVE_STATUSES } from '../../runs/lifecycle.ts';
import { SLOT_KINDS } from '../../quotas/tenant-quota.ts';

/** The bytes of the files under a directory (links are not followed); 0 when it is missing. */
export async function directoryBytes(dir: string): Promise<number> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => null);
  if (!entries) return 0;
  let total = 0;
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(full);
    else total += await lstat(full).then((s) => s.size, () => 0);
  }
  return total;
}

/**
 * SQL: the runs of an organization ($1): its own, and those without one of its projects and
 * inventories (a project update or an ad hoc command made before their organization was set).
 */
export const RUNS_OF_ORGANIZATION = `
  SELECT j.id FROM unified_jobs j WHERE j.organization_id = $1
  UNION SELECT j.id FROM unified_jobs j JOIN projects p ON p.id = j.project_id WHERE j.organization_id IS NULL AND p.organization_id = $1
  UNION SELECT j.id FROM unified_jobs j JOIN inventories i ON i.id = j.inventory_id WHERE j.organization_id IS NULL AND i.organization_id = $1`;

/** SQL: every run that uses what an organization ($1) owns, another organization's run on its inventory included. */
export const RUNS_USING_ORGANIZATION = `
  SELECT j.id FROM unified_jobs j WHERE j.organization_id = $1
  UNION SELECT j.id FROM unified_jobs j JOIN projects p ON p.id = j.project_id WHERE p.organization_id = $1
  UNION SELECT j.id FROM unified_jobs j JOIN inventories i ON i.id = j.inventory_id WHERE i.organization_id = $1`;

/** The directories an organization's projects keep on disk: checkouts of source-control projects, their requirements and the revisions this node holds. */
export async function projectDirectories(db: Queryable, projectsRoot: string, organizationId: number): Promise<string[]> {
  const projects = await db.query<{ local_path: string }>(
    `SELECT local_path FROM projects WHERE organization_id = $1 AND scm_type <> '' AND local_path <> ''`,
    [organizationId],
  );
  return projects.flatMap(({ local_path }) => {
    const checkout = projectDir(projectsRoot, local_path);
    return checkout ? [checkout, requirementsDir(projectsRoot, local_path), revisionsDir(projectsRoot, local_path)] : [];
  });
}

export interface Usage {
  hosts: number;
  concurrent_jobs: number;
  storage_bytes: number;
}

/** Recomputes one tenant's usage and stores it with the time (tenant_usage.recalculated). */
export async function recalculateTenant(db: Queryable, projectsRoot: string, tenantId: number): Promise<Usage | null> {
  const [tenant] = await db.query<{ organization_id: number }>('SELECT organization_id FROM tenants WHERE id = $1', [tenantId]);
  if (!tenant) return null;
  const org = tenant.organization_id;
  const [[counts], directories] = await Promise.all([
    db.query<{ hosts: number; concurrent_jobs: number; output_bytes: number }>(
      `SELECT (SELECT count(*)::int FROM hosts h JOIN inventories i ON i.id = h.inventory_id WHERE i.organization_id = $1) AS hosts,
              (SELECT count(*)::int FROM unified_jobs WHERE id IN (${RUNS_OF_ORGANIZATION}) AND status = ANY($2::text[]) AND kind = ANY($3::text[])) AS concurrent_jobs,
              (SELECT coalesce(sum(octet_length(e.stdout)), 0)::float8 FROM unified_job_events e WHERE e.unified_job_id IN (${RUNS_OF_ORGANIZATION})) AS output_bytes`,
      [org, ACTIVE_STATUSES, SLOT_KINDS],
    ),
    projectDirectories(db, projectsRoot, org),
  ]);
  let diskBytes = 0;
  for (const dir of directories) diskBytes += await directoryBytes(dir);
  const usage: Usage = { hosts: counts.hosts, concurrent_jobs: counts.concurrent_jobs, storage_bytes: counts.output_bytes + diskBytes };
  await db.query(
    `INSERT INTO tenant_usage (tenant_id, hosts, concurrent_jobs, storage_bytes, recalculated) VALUES ($1, $2, $3, $4, now())
     ON CONFLICT (tenant_id) DO UPDATE SET hosts = EXCLUDED.hosts, concurrent_jobs = EXCLUDED.concurrent_jobs,
       storage_bytes = EXCLUDED.storage_bytes, recalculated = EXCLUDED.recalculated`,
    [tenantId, usage.hosts, usage.concurrent_jobs, usage.storage_bytes],
  );
  return usage;
}

/** Recomputes every tenant's usage, one after another (the periodic recalculation). */
export async function recalculateAllTenants(db: Queryable, projectsRoot: string): Promise<number> {
  const ids = await db.query<{ id: number }>('SELECT id FROM tenants ORDER BY id');
  for (const { id } of ids) await recalculateTenant(db, projectsRoot, id);
  return ids.length;
}
