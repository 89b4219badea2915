import { mkdirSync } from 'node:fs';

/** Creates the directory of project checkouts and manual project directories (SVC_PROJECTS_ROOT), private to the service. */
export function ensureProjectsRoot(projectsRoot: string): void {
  mkdirSync(projectsRoot, { recursive: true, mode: 0o700 });
}
