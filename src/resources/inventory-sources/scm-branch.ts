import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const git = async (cwd: string, args: string[]) =>
  (await run('git', args, { cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' }, maxBuffer: 16 * 1024 * 1024 })).stdout.trim();

/**
 * For a source overriding its project's branch: the files of that branch, tag or commit, taken
 * from the project's checkout (whose update fetched every branch and tag) into `target`, without
 * touching the checkout. Answers the commit, or null when the checkout does not have it.
 */
export async function exportRevision(checkout: string, revision: string, target: string): Promise<string | null> {
  if (revision.startsWith('-')) return null;
  let commit: string | null = null;
  for (const candidate of [`refs/remotes/origin/${revision}`, `refs/tags/${revision}`, revision]) {
    commit = await git(checkout, ['rev-parse', '--verify', '--quiet', `${candidate}^{commit}`]).catch(() => null);
    if (commit) break;
  }
  if (!commit) return null;
  await mkdir(target, { recursive: true, mode: 0o700 });
  const archive = `${target}.tar`;
  await git(checkout, ['archive', '--format=tar', '-o', archive, commit]);
  await run('tar', ['-xf', archive, '-C', target]);
  return commit;
}

export const exportedProjectDir = (privateDir: string) => path.join(privateDir, 'project');
