import type { Queryable } from '../../db/database.ts';
import { ACTIVE_RUN_STATUSES, percentRemaining, taskImpactSql } from '../instances/capacity.ts';

export interface GroupLoad {
  capacity: number;
  consumed_capacity: number;
  percent_capacity_remaining: number;
  jobs_running: number;
  jobs_total: number;
  instances: number;
}

/** Each group's capacity (its instances' together) and the runs on its instances, in two queries. */
export async function groupLoads(db: Queryable, groupIds: readonly number[]): Promise<Map<number, GroupLoad>> {
  const loads = new Map<number, GroupLoad>();
  if (!groupIds.length) return loads;
  const ids = [...new Set(groupIds)];
  const capacities = await db.query<{ id: number; capacity: number; instances: number }>(
    `SELECT m.instance_group_id AS id, coalesce(sum(i.capacity), 0)::int AS capacity, count(*)::int AS instances
     FROM instance_group_instances m JOIN instances i ON i.id = m.instance_id
     WHERE m.instance_group_id = ANY($1::integer[]) GROUP BY m.instance_group_id`,
    [ids],
  );
  const runs = await db.query<{ id: number; consumed: number; running: number; total: number }>(
    `SELECT m.instance_group_id AS id,
            coalesce(sum(${taskImpactSql('r')}) FILTER (WHERE r.status = ANY($2)), 0)::int AS consumed,
            (count(*) FILTER (WHERE r.status = ANY($2)))::int AS running,
            count(*)::int AS total
     FROM instance_group_instances m JOIN instances i ON i.id = m.instance_id JOIN unified_jobs r ON r.execution_node = i.hostname
     WHERE m.instance_group_id = ANY($1::integer[]) GROUP BY m.instance_group_id`,
    [ids, ACTIVE_RUN_STATUSES],
  );
  for (const id of ids) {
    const cap = capacities.find((c) => c.id === id);
    const run = runs.find((r) => r.id === id);
    const capacity = cap?.capacity ?? 0;
    const consumed = run?.consumed ?? 0;
    loads.set(id, {
      capacity,
      consumed_capacity: consumed,
      percent_capacity_remaining: percentRemaining(capacity, consumed),
      jobs_running: run?.running ?? 0,
      jobs_total: run?.total ?? 0,
      instances: cap?.instances ?? 0,
    });
  }
  return loads;
}
