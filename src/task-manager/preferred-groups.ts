import type { Queryable } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';

// Keyed by number | null: runs look their groups up by columns that may be null (no such key: no groups).
async function groupsBy(tx: Queryable, table: string, column: string, ids: number[]): Promise<Map<number | null, number[]>> {
  const result = new Map<number | null, number[]>();
  if (!ids.length) return result;
  const rows = await tx.query<{ owner: number; group_id: number }>(
    `SELECT ${column} AS owner, instance_group_id AS group_id FROM ${table} WHERE ${column} = ANY($1::int[]) ORDER BY ${column}, position, instance_group_id`,
    [[...new Set(ids)]],
  );
  for (const r of rows) result.set(r.owner, [...(result.get(r.owner) ?? []), r.group_id]);
  return result;
}

const present = (values: Array<number | null | undefined>) => values.filter((v): v is number => typeof v === 'number');

/**
 * Each run's instance groups in preference order (AWX): the groups chosen at launch alone when
 * there are any; otherwise the job template's, then the inventory's, then the organization's.
 * An empty list means the default group.
 */
export async function preferredGroups(
  tx: Queryable, runs: Pick<UnifiedJobRow, 'id' | 'kind' | 'job_template_id' | 'inventory_id' | 'organization_id'>[],
): Promise<Map<number, number[]>> {
  const launch = await groupsBy(tx, 'unified_job_instance_groups', 'unified_job_id', runs.map((r) => r.id));
  const templates = await groupsBy(tx, 'job_template_instance_groups', 'job_template_id', present(runs.map((r) => r.job_template_id)));
  const inventories = await groupsBy(tx, 'inventory_instance_groups', 'inventory_id', present(runs.map((r) => r.inventory_id)));
  const organizations = await groupsBy(tx, 'organization_instance_groups', 'organization_id', present(runs.map((r) => r.organization_id)));
  const result = new Map<number, number[]>();
  for (const run of runs) {
    const chosen = launch.get(run.id);
    if (chosen) {
      result.set(run.id, chosen);
      continue;
    }
    // Project updates run where the organization's groups say; the template and inventory do not apply.
    const ordered = [
      ...(run.kind === 'job' ? templates.get(run.job_template_id) ?? [] : []),
      ...(run.kind !== 'project_update' ? inventories.get(run.inventory_id) ?? [] : []),
      ...(organizations.get(run.organization_id) ?? []),
    ];
    result.set(run.id, [...new Set(ordered)]);
  }
  return result;
}
