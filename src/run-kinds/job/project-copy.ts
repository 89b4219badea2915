import { cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { ProjectRow, UnifiedJobRow } from '../../db/tables.ts';
import type { RunContext } from '../../runs/run-kind.ts';
import { branchProblem, commitOf, revisionCandidates } from '../../projects/git-values.ts';

export type ProjectCopy = { dir: string; revision: string } | { problem: string };

/** The commit a branch, tag or commit id names in the project's checkout (which holds every branch and tag it fetched). */
async function resolveRevision(run: RunContext, checkout: string, name: string): Promise<string | null> {
  for (const candidate of revisionCandidates(name)) {
    const result = await run.exec('git', commitOf(candidate), { cwd: checkout, captureStdout: true, sandbox: { readable: [checkout] } });
    if (result.code === 0 && result.stdout.trim()) return result.stdout.trim();
  }
  return null;
}

/**
 * The project files a job runs on, copied into its private directory (as AWX does, so that a
 * project update meanwhile changes nothing under the run): the last update's checkout without
 * `.git`, or, when the job asks for another branch, tag or commit (scm_branch, with the
 * project's allow_override), that revision's files taken from the checkout's repository.
 */
export async function copyProject(
  run: RunContext, job: Pick<UnifiedJobRow, 'scm_branch'>, project: Pick<ProjectRow, 'scm_type' | 'scm_branch' | 'scm_revision'>, checkout: string,
): Promise<ProjectCopy> {
  const dir = path.join(run.privateDir, 'project');
  const branch = String(job.scm_branch ?? '');
  if (project.scm_type !== 'git' || !branch || branch === project.scm_branch) {
    await cp(checkout, dir, { recursive: true, verbatimSymlinks: true, filter: (source) => path.basename(source) !== '.git' });
    return { dir, revision: project.scm_revision ?? '' };
  }
  const invalid = branchProblem(branch);
  if (invalid) return { problem: invalid };
  const revision = await resolveRevision(run, checkout, branch);
  if (!revision) return { problem: `The branch, tag or commit "${branch}" is not in the project's last update: update the project, or check the name.` };
  await mkdir(dir, { recursive: true });
  const extract = await run.exec('sh', ['-c', 'git -C "$1" archive --format=tar "$2" | tar -x -C "$3"', 'sh', checkout, revision, dir], { sandbox: { readable: [checkout] } });
  if (extract.code !== 0) return { problem: `The files of "${branch}" could not be taken from the project: ${extract.stderr || `exit code ${extract.code}`}` };
  await run.output(`Running on ${branch} at revision ${revision} (the job's scm_branch).`);
  return { dir, revision };
}
