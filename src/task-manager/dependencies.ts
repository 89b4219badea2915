import type { RequestContext } from '../api/context.ts';
import type { Queryable } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import type { RunKinds } from '../runs/run-kind.ts';

const isId = (id: number | null): id is number => Boolean(id);

/** What processing a run's dependencies reads of it. */
export type DependentRun = Pick<UnifiedJobRow, 'id' | 'kind' | 'project_id' | 'inventory_id'>;

/**
 * AWX's dependency manager: before a run of a kind that launches what it waits for (jobs) may start,
 * what it runs on is brought up to date: each update kind it waits for (its project's
 * scm_update_on_launch, its inventory's update_on_launch sources) gives the updates due. Each run
 * is processed once; runs of one pass share the updates they need.
 */
export async function processDependencies(tx: Queryable, kinds: RunKinds, system: RequestContext, runs: DependentRun[]): Promise<void> {
  if (!runs.length) return;
  const links: Array<[number, number]> = [];
  for (const updateKind of kinds.updateKinds()) {
    const { of, dependencies } = updateKind.update;
    const waiting = runs.filter((r) => kinds.get(r.kind).waitsFor?.updates.includes(updateKind.name));
    if (!dependencies || !waiting.length) continue;
    // Looked up by the runs' columns, which may be null (no such key: no dependency).
    const due: Map<number | null, number[]> = await dependencies(tx, system, [...new Set(waiting.map((r) => r[of]).filter(isId))]);
    for (const run of waiting) for (const update of due.get(run[of]) ?? []) links.push([run.id, update]);
  }
  if (links.length) {
    await tx.query(
      `INSERT INTO unified_job_dependencies (unified_job_id, dependency_id) SELECT * FROM unnest($1::int[], $2::int[]) ON CONFLICT DO NOTHING`,
      [links.map((l) => l[0]), links.map((l) => l[1])],
    );
  }
  await tx.query('UPDATE unified_jobs SET dependencies_processed = true WHERE id = ANY($1::int[])', [runs.map((j) => j.id)]);
}
