import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { baseEnvironment } from '../../runs/exec.ts';
import { branchProblem, commitOf, revisionCandidates } from '../../projects/git-values.ts';

const run = promisify(execFile);

// Only the checkout is read: no transport at all, and none of the service's own variables.
const git = async (cwd: string, args: string[]) =>
  (await run('git', args, { cwd, env: { ...baseEnvironment(), GIT_TERMINAL_PROMPT: '0', GIT_ALLOW_PROTOCOL: '' }, maxBuffer: 16 * 1024 * 1024 })).stdout.trim();

/**
 * For a source overriding its project's branch: the files of that branch, tag or commit, taken
 * from the project's checkout (whose update fetched every branch and tag) into `target`, without
 * touching the checkout. Answers the commit, or null when the checkout does not have it.
 */
export async function exportRevision(checkout: string, revision: string, target: string): Promise<string | null> {
  if (branchProblem(revision)) return null;
  let commit: string | null = null;
  for (const candidate of revisionCandidates(revision)) {
    commit = await git(checkout, commitOf(candidate)).catch(() => null);
    if (commit) break;
  }
  if (!commit || !/^[0-9a-f]{40,64}$/.test(commit)) return null;
  await mkdir(target, { recursive: true, mode: 0o700 });
  const archive = `${target}.tar`;
  await git(checkout, ['archive', '--format=tar', '-o', archive, commit]);
  await run('tar', ['-xf', archive, '-C', target]);
  return commit;
}

export const exportedProjectDir = (privateDir: string) => path.join(privateDir, 'project');
