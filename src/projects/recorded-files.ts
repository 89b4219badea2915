// A project's playbooks and inventory files as its last update recorded them (migration 0046), so
// that every node answers alike whatever its disk holds; read from the disk only for manual
// projects and for git projects not synced since the lists were recorded.
import type { ProjectRow } from '../db/tables.ts';
import { findInventoryFiles, findPlaybooks } from './discovery.ts';
import { projectFilesDir, type ProjectSourcesView } from './local-sources.ts';

type Project = Pick<ProjectRow, 'local_path' | 'scm_type' | 'playbook_files' | 'inventory_files'>;

const strings = (value: unknown): string[] | null => (Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : null);

async function fromDisk(service: ProjectSourcesView, project: Project, find: (dir: string) => Promise<string[]>): Promise<string[]> {
  const dir = await projectFilesDir(service, project.local_path);
  return dir ? find(dir) : [];
}

/** The project's playbooks (AWX's /projects/{id}/playbooks/ and the template's playbook check). */
export async function projectPlaybooks(service: ProjectSourcesView, project: Project): Promise<string[]> {
  const recorded = project.scm_type ? strings(project.playbook_files) : null;
  return recorded ?? fromDisk(service, project, findPlaybooks);
}

/** The project's inventory files (AWX's /projects/{id}/inventories/). */
export async function projectInventoryFiles(service: ProjectSourcesView, project: Project): Promise<string[]> {
  const recorded = project.scm_type ? strings(project.inventory_files) : null;
  return recorded ?? fromDisk(service, project, findInventoryFiles);
}
