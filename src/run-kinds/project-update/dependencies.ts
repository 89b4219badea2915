import type { RequestContext } from '../../api/context.ts';
import type { Queryable } from '../../db/database.ts';
import type { ProjectRow } from '../../db/tables.ts';
import { latestRuns, stale } from '../../runs/update-dependencies.ts';
import { queueProjectUpdate } from './queue.ts';

/** The project update each project needs before its jobs run (scm_update_on_launch), creating it when due. */
export async function projectDependencies(tx: Queryable, system: RequestContext, projectIds: number[]): Promise<Map<number, number[]>> {
  const result = new Map<number, number[]>();
  const projects = await tx.query<ProjectRow>(`SELECT * FROM projects WHERE id = ANY($1::int[]) AND scm_type <> '' AND scm_update_on_launch`, [projectIds]);
  if (!projects.length) return result;
  const { active, finished } = await latestRuns(tx, 'project_update', projects.map((p) => p.id));
  for (const project of projects) {
    const running = active.get(project.id);
    if (running) result.set(project.id, [running]);
    else if (stale(finished.get(project.id), project.scm_update_cache_timeout)) {
      result.set(project.id, [(await queueProjectUpdate(tx, system, project, 'dependency')).id]);
    }
  }
  return result;
}
