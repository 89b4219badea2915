import type { Queryable } from '../../db/database.ts';

/**
 * AWX's capacity rule: a disabled node, or one with errors (no Ansible runtime), offers nothing;
 * otherwise the smaller of CPU and memory capacity, moved towards the larger by the adjustment
 * (0 keeps the smaller, 1 takes the larger).
 */
export function adjustedCapacity(cpuCapacity: number, memCapacity: number, adjustment: number, enabled = true, errors = ''): number {
  if (!enabled || errors) return 0;
  const lower = Math.min(cpuCapacity, memCapacity);
  const higher = Math.max(cpuCapacity, memCapacity);
  return Math.floor(lower + (higher - lower) * adjustment);
}

/** The capacity one run takes: its task_impact (1 for project and inventory updates, as in AWX). */
export function taskImpactSql(alias: string): string {
  return `${alias}.task_impact`;
}

export const ACTIVE_RUN_STATUSES = ['waiting', 'running'];

export interface NodeLoad {
  consumed_capacity: number;
  jobs_running: number;
  jobs_total: number;
}

/** Consumed capacity and run counts of each hostname, from the runs executing there, in one query. */
export async function loadByHostname(db: Queryable, hostnames: readonly string[]): Promise<Map<string, NodeLoad>> {
  const loads = new Map<string, NodeLoad>();
  if (!hostnames.length) return loads;
  const rows = await db.query<{ node: string; consumed: number; running: number; total: number }>(
    `SELECT r.execution_node AS node,
            coalesce(sum(${taskImpactSql('r')}) FILTER (WHERE r.status = ANY($2)), 0)::int AS consumed,
            (count(*) FILTER (WHERE r.status = ANY($2)))::int AS running,
            count(*)::int AS total
     FROM unified_jobs r WHERE r.execution_node = ANY($1) GROUP BY r.execution_node`,
    [[...new Set(hostnames)], ACTIVE_RUN_STATUSES],
  );
  for (const row of rows) loads.set(row.node, { consumed_capacity: row.consumed, jobs_running: row.running, jobs_total: row.total });
  return loads;
}

/** AWX's percent_capacity_remaining: two decimals, 0 for a node without capacity. */
export function percentRemaining(capacity: number, consumed: number): number {
  if (!capacity) return 0;
  return Math.max(0, Math.round(((capacity - consumed) / capacity) * 10_000) / 100);
}
