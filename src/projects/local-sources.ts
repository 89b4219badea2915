// Which directories on the service host git may read local repositories from, and which a
// project's files may be read from: never another project's checkout, never through a link out.
import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { EnvConfig } from '../config/env.ts';
import { projectDir } from './paths.ts';

/** What deciding where project files may come from reads of the service. */
export interface ProjectSourcesView {
  settings: { get<T = unknown>(key: string): T };
  env: Pick<EnvConfig, 'projectsRoot' | 'localSourceDirs'>;
}

export const LOCAL_SOURCE_SETTING = 'PROJECT_LOCAL_SOURCE_DIRS';

/** The directories local repositories may be read from: PROJECT_LOCAL_SOURCE_DIRS and the demo repository's. */
export function allowedDirs(service: ProjectSourcesView): string[] {
  const listed = service.settings.get<string[] | null>(LOCAL_SOURCE_SETTING) ?? [];
  return [...service.env.localSourceDirs, ...listed].filter((dir) => path.isAbsolute(dir));
}

/** The real path `p` names: its links resolved as far as it exists, the rest appended as written. */
async function realPath(p: string): Promise<string> {
  const missing: string[] = [];
  let current = path.resolve(p);
  for (;;) {
    const real = await realpath(current).catch(() => null);
    if (real) return path.join(real, ...missing);
    const parent = path.dirname(current);
    if (parent === current) return path.resolve(p);
    missing.unshift(path.basename(current));
    current = parent;
  }
}

const inside = (dir: string, p: string) => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);

async function inAllowedDir(service: ProjectSourcesView, real: string): Promise<boolean> {
  for (const dir of allowedDirs(service)) if (inside(await realPath(dir), real)) return true;
  return false;
}

export type LocalSource = { path: string } | { problem: string };

/**
 * A local repository (file:// URL or plain path) as git may read it: its real path, inside a
 * directory of PROJECT_LOCAL_SOURCE_DIRS and outside the projects root; or why it may not be used.
 */
export async function checkLocalSource(service: ProjectSourcesView, repository: string): Promise<LocalSource> {
  const real = await realPath(repository);
  if (inside(await realPath(service.env.projectsRoot), real)) {
    return { problem: 'The projects root holds the checkouts of other projects: a local repository there cannot be used.' };
  }
  if (!(await inAllowedDir(service, real))) {
    return { problem: `Local repositories (file:// URLs and paths) are allowed only under the directories an administrator lists in ${LOCAL_SOURCE_SETTING}.` };
  }
  return { path: real };
}

export type ProjectFiles = { dir: string } | { problem: string };

/**
 * The directory holding a project's files (its checkout, or a manual project's directory): a
 * directory of the projects root that is no link, or a link into a directory of
 * PROJECT_LOCAL_SOURCE_DIRS. A link to anything else (another project's directory, /etc) is
 * never followed.
 */
export async function projectFiles(service: ProjectSourcesView, localPath: string): Promise<ProjectFiles> {
  const dir = projectDir(service.env.projectsRoot, localPath);
  if (!dir) return { problem: `Invalid path choice "${localPath}": name one directory under the projects root.` };
  const real = await realpath(dir).catch(() => null);
  if (!real || !(await stat(real)).isDirectory()) return { problem: `Invalid path choice "${localPath}": no such directory under the projects root.` };
  const root = await realPath(service.env.projectsRoot);
  const link = (await lstat(dir)).isSymbolicLink();
  if (!link && real === path.join(root, localPath)) return { dir: real };
  if (link && !inside(root, real) && (await inAllowedDir(service, real))) return { dir: real };
  return { problem: `Invalid path choice "${localPath}": it is a link, and only links into the directories listed in ${LOCAL_SOURCE_SETTING} are followed.` };
}

/** The directory of a project's files, or null when there is none that may be read (see projectFiles). */
export async function projectFilesDir(service: ProjectSourcesView, localPath: string): Promise<string | null> {
  const found = await projectFiles(service, localPath);
  return 'dir' in found ? found.dir : null;
}
