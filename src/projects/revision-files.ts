import type { ProjectRow, UnifiedJobRow } from '../db/tables.ts';
import type { ExecOptions, ExecResult } from '../runs/run-kind.ts';

/** How processes are started for the caller: a run's exec, or a scan's (both inside the sandbox). */
export type Exec = (command: string, args: string[], options?: ExecOptions) => Promise<ExecResult>;

/** The branch, tag or commit a job asks for instead of the project's last update (scm_branch with allow_override), or null. */
export function branchOverride(job: Pick<UnifiedJobRow, 'scm_branch'>, project: Pick<ProjectRow, 'scm_type' | 'scm_branch'>): string | null {
  const branch = String(job.scm_branch ?? '');
  return project.scm_type !== 'git' || !branch || branch === project.scm_branch ? null : branch;
}
