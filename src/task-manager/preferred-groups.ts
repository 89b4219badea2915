import type { Queryable } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import type { InstanceGroupOwner, RunKinds } from '../runs/run-kind.ts';

/** Where a kind's runs take their groups from unless its run kind says (the inventory's, then the organization's). */
const USUAL_OWNERS: readonly InstanceGroupOwner[] = ['inventory', 'organization'];

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

type PlacedRun = Pick<UnifiedJobRow, 'id' | 'kind' | 'job_template_id' | 'inventory_id' | 'organization_id'>;

/**
 * Each run's instance groups in preference order (AWX): the groups chosen at launch alone when
 * there are any; otherwise those of what its run kind names (a job: its job template's, then its
 * inventory's, then its organization's). An empty list means the default group.
 */
export async function preferredGroups(tx: Queryable, kinds: RunKinds, runs: PlacedRun[]): Promise<Map<number, number[]>> {
  const ownersOf = (run: PlacedRun) => kinds.get(run.kind).instanceGroupsFrom ?? USUAL_OWNERS;
  const launch = await groupsBy(tx, 'unified_job_instance_groups', 'unified_job_id', runs.map((r) => r.id));
  const byOwner = new Map<InstanceGroupOwner, Map<number | null, number[]>>();
  for (const owner of ['job_template', 'inventory', 'organization'] as const) {
    const column = `${owner}_id` as const;
    byOwner.set(owner, await groupsBy(tx, `${owner}_instance_groups`, column, present(runs.filter((r) => ownersOf(r).includes(owner)).map((r) => r[column]))));
  }
  const result = new Map<number, number[]>();
  for (const run of runs) {
    const chosen = launch.get(run.id);
    if (chosen) {
      result.set(run.id, chosen);
      continue;
    }
    const ordered = ownersOf(run).flatMap((owner) => byOwner.get(owner)!.get(run[`${owner}_id`]) ?? []);
    result.set(run.id, [...new Set(ordered)]);
  }
  return result;
}
