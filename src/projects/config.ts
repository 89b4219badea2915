import { mkdirSync } from 'node:fs';

let root = '';

/** Where project checkouts and manual project directories live (SVC_PROJECTS_ROOT). */
export function configureProjectsRoot(projectsRoot: string): void {
  root = projectsRoot;
  mkdirSync(root, { recursive: true, mode: 0o700 });
}

export function projectsRoot(): string {
  if (!root) throw new Error('projects root not configured');
  return root;
}
