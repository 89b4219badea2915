import { cp, mkdir } from 'node:fs/promises';
import type { ProjectRow, UnifiedJobRow } from '../db/tables.ts';
import type { ExecOptions, ExecResult } from '../runs/run-kind.ts';
import { branchProblem, commitOf, revisionCandidates } from './git-values.ts';

/** How processes are started for the caller: a run's exec, or a scan's (both inside the sandbox). */
export type Exec = (command: string, args: string[], options?: ExecOptions) => Promise<ExecResult>;

export type ProjectCopy = { dir: string; revision: string } | { problem: string };
export type Revision = { revision: string; fromBranch: string | null } | { problem: string };

type Project = Pick<ProjectRow, 'scm_type' | 'scm_branch' | 'scm_revision'>;

/** The commit a branch, tag or commit id names in the project's checkout (which holds every branch and tag it fetched). */
async function resolveRevision(exec: Exec, checkout: string, name: string): Promise<string | null> {
  for (const candidate of revisionCandidates(name)) {
    const result = await exec('git', commitOf(candidate), { cwd: checkout, captureStdout: true, sandbox: { readable: [checkout] } });
    if (result.code === 0 && result.stdout.trim()) return result.stdout.trim();
  }
  return null;
}

/** The branch, tag or commit a job asks for instead of the project's last update (scm_branch with allow_override), or null. */
export function branchOverride(job: Pick<UnifiedJobRow, 'scm_branch'>, project: Project): string | null {
  const branch = String(job.scm_branch ?? '');
  return project.scm_type !== 'git' || !branch || branch === project.scm_branch ? null : branch;
}

/**
 * The revision a job runs on: the last update's, or, when the job asks for another branch, tag or
 * commit (scm_branch, with the project's allow_override), what that name is in the checkout.
 */
export async function jobRevision(exec: Exec, job: Pick<UnifiedJobRow, 'scm_branch'>, project: Project, checkout: string): Promise<Revision> {
  const branch = branchOverride(job, project);
  if (branch === null) return { revision: project.scm_revision ?? '', fromBranch: null };
  const invalid = branchProblem(branch);
  if (invalid) return { problem: invalid };
  const revision = await resolveRevision(exec, checkout, branch);
  if (!revision) return { problem: `The branch, tag or commit "${branch}" is not in the project's last update: update the project, or check the name.` };
  return { revision, fromBranch: branch };
}

/**
 * The project files a job runs on, copied to `dir` (as AWX does, so that a project update
 * meanwhile changes nothing under the run): the last update's checkout without `.git`, or another
 * revision's files taken from the checkout's repository (see jobRevision).
 */
export async function copyRevision(exec: Exec, found: Extract<Revision, { revision: string }>, checkout: string, dir: string): Promise<ProjectCopy> {
  if (found.fromBranch === null) {
    await cp(checkout, dir, { recursive: true, verbatimSymlinks: true, filter: (source) => !source.endsWith('/.git') });
    return { dir, revision: found.revision };
  }
  await mkdir(dir, { recursive: true });
  const extract = await exec('sh', ['-c', 'git -C "$1" archive --format=tar "$2" | tar -x -C "$3"', 'sh', checkout, found.revision, dir], { sandbox: { readable: [checkout] } });
  if (extract.code !== 0) return { problem: `The files of "${found.fromBranch}" could not be taken from the project: ${extract.stderr || `exit code ${extract.code}`}` };
  return { dir, revision: found.revision };
}
