import path from 'node:path';
import { stat } from 'node:fs/promises';

/** Directory name of a source-control project's checkout under the projects root (AWX's _<id>__<name>). */
export function checkoutDirName(id: number, name: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 60);
  return `_${id}__${slug}`;
}

/** Absolute path of a project's files; null when local_path would leave the projects root. */
export function projectDir(projectsRoot: string, localPath: string): string | null {
  if (!localPath || localPath.includes('/') || localPath.includes('\\') || localPath === '.' || localPath === '..') return null;
  return path.join(projectsRoot, localPath);
}

export async function isDirectory(p: string): Promise<boolean> {
  return stat(p).then((s) => s.isDirectory(), () => false);
}

/** Where roles and collections from a project's requirements files are installed, outside its checkout. */
export function requirementsDir(projectsRoot: string, localPath: string): string {
  return path.join(projectsRoot, '.__cache', localPath);
}

/** Where a node keeps a project's checkouts by revision (src/projects/revision-cache.ts). */
export function revisionsDir(projectsRoot: string, localPath: string): string {
  return path.join(projectsRoot, '.__revisions', localPath);
}

/** Where a node keeps the file of an archive project's last update, to run its revision without downloading it again. */
export function archiveCopyPath(projectsRoot: string, localPath: string): string {
  return path.join(projectsRoot, '.__archives', localPath);
}

const DEFAULT_ROLES_PATH = '~/.ansible/roles:/usr/share/ansible/roles:/etc/ansible/roles';
const DEFAULT_COLLECTIONS_PATH = '~/.ansible/collections:/usr/share/ansible/collections';

/**
 * Ansible's role and collection search paths with what the project's requirements installed (in
 * `cache`) first, as AWX sets them for jobs and inventory updates.
 */
export function requirementsSearchPaths(cache: string, baseEnv: Record<string, string>): Record<string, string> {
  return {
    ANSIBLE_ROLES_PATH: [path.join(cache, 'requirements_roles'), baseEnv.ANSIBLE_ROLES_PATH ?? DEFAULT_ROLES_PATH].join(':'),
    ANSIBLE_COLLECTIONS_PATHS: [path.join(cache, 'requirements_collections'), baseEnv.ANSIBLE_COLLECTIONS_PATHS ?? DEFAULT_COLLECTIONS_PATH].join(':'),
  };
}
