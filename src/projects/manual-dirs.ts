// Which manual projects' directories this node holds (a manual project runs only where its directory
// exists, docs/projects.md#several-nodes): recorded on the node's instance row for the task manager.
import type { Queryable } from '../db/database.ts';
import { projectFilesDir, type ProjectSourcesView } from './local-sources.ts';

/** The local_path of every manual project whose directory exists (and may be read) on this node. */
export async function manualDirectoriesHere(db: Queryable, service: ProjectSourcesView): Promise<string[]> {
  const projects = await db.query<{ local_path: string }>(`SELECT DISTINCT local_path FROM projects WHERE scm_type = '' AND local_path <> '' ORDER BY local_path`);
  const held: string[] = [];
  for (const { local_path } of projects) if (await projectFilesDir(service, local_path)) held.push(local_path);
  return held;
}

/** Records on this node's instance row the manual projects' directories it holds. */
export async function recordManualDirectories(db: Queryable, service: ProjectSourcesView, nodeName: string): Promise<void> {
  await db.query('UPDATE instances SET manual_project_dirs = $2 WHERE hostname = $1', [nodeName, JSON.stringify(await manualDirectoriesHere(db, service))]);
}

/** Adds one directory to what this node holds (a manual project saved through it, whose directory was just checked here). */
export async function addManualDirectory(db: Queryable, nodeName: string, localPath: string): Promise<void> {
  await db.query(
    `UPDATE instances SET manual_project_dirs = manual_project_dirs || to_jsonb($2::text)
     WHERE hostname = $1 AND NOT manual_project_dirs ? $2`,
    [nodeName, localPath],
  );
}
