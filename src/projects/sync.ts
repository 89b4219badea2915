import { access, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Row } from '../db/database.ts';
import type { RunContext, RunOutcome } from '../dispatcher/runners.ts';
import { projectsRoot } from './config.ts';
import { gitAuthentication } from './git-auth.ts';
import { projectDir, isDirectory } from './paths.ts';
import { installRequirements } from './requirements.ts';
import { withoutUser } from './scm-url.ts';
import { scmInputs } from './scm-credential.ts';

class SyncFailure extends Error {}

/**
 * Runs one project update with the git CLI: clone (or fetch into) the checkout under the projects
 * root, check out the branch, tag or commit, update submodules, then install requirements.
 */
export async function syncProject(job: Row, run: RunContext): Promise<RunOutcome> {
  const dir = projectDir(projectsRoot(), job.local_path);
  if (!dir) return { status: 'error', explanation: `Invalid project path "${job.local_path}".` };
  const inputs = await scmInputs(run.db, job.credential_id);
  const auth = await gitAuthentication(run.privateDir, inputs);
  const fileUrl = /^(file:|\/)/.test(job.scm_url);
  const git = async (args: string[], options: { cwd?: string; capture?: boolean } = {}) => {
    // Local repositories may bring local submodules (git refuses file:// submodules by default).
    const all = [...(fileUrl ? ['-c', 'protocol.file.allow=always'] : []), ...args];
    if (!options.capture) await run.output(`$ git ${args.join(' ')}`);
    const result = await run.exec('git', all, { cwd: options.cwd ?? dir, env: auth.env, secrets: auth.secrets, captureStdout: options.capture });
    if (run.signal.aborted) throw new SyncFailure('stopped');
    if (result.code !== 0) throw new SyncFailure(`git ${args[0]} failed (exit code ${result.code}).`);
    return result.stdout.trim();
  };
  try {
    if (job.scm_delete_on_update) {
      await run.output(`Deleting ${dir} before the update (scm_delete_on_update).`);
      await rm(dir, { recursive: true, force: true });
    }
    if (!(await isDirectory(path.join(dir, '.git')))) {
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      await git(['init', '--quiet']);
      await git(['remote', 'add', 'origin', withoutUser(job.scm_url)]);
    } else {
      await git(['remote', 'set-url', 'origin', withoutUser(job.scm_url)]);
    }
    const refspecs = ['+refs/heads/*:refs/remotes/origin/*', ...String(job.scm_refspec).split(/[\s,]+/).filter(Boolean)];
    await git(['fetch', '--prune', '--tags', '--force', '--progress', 'origin', ...refspecs]);
    const target = await resolveTarget(job.scm_branch, git);
    if (job.scm_clean) await git(['clean', '-ffdx']);
    await git(['checkout', '--force', '--detach', target]);
    if (job.scm_clean) await git(['reset', '--hard', target]);
    if (await hasSubmodules(dir)) {
      await git(['submodule', 'sync', '--recursive']);
      await git(['submodule', 'update', '--init', '--recursive', '--force', ...(job.scm_track_submodules ? ['--remote'] : [])]);
    }
    const revision = await git(['rev-parse', 'HEAD'], { capture: true });
    await run.output(`Checked out ${job.scm_branch || 'the default branch'} at revision ${revision}.`);
    const problem = await installRequirements(job, run, dir);
    if (problem) return { status: 'failed', explanation: problem, updates: { scm_revision: revision } };
    return { status: 'successful', updates: { scm_revision: revision } };
  } catch (err) {
    if (err instanceof SyncFailure) return { status: 'failed', explanation: err.message };
    throw err;
  } finally {
    await auth.close();
  }
}

/** What a branch, tag or commit name may stand for in a checkout, in the order tried. */
export const revisionCandidates = (name: string) => [`refs/remotes/origin/${name}`, `refs/tags/${name}`, name];

/** The commit to check out: the branch, a tag, a commit id, or the remote's default branch. */
async function resolveTarget(branch: string, git: (args: string[], o?: { capture?: boolean }) => Promise<string>): Promise<string> {
  if (!branch) {
    const head = await git(['ls-remote', '--symref', 'origin', 'HEAD'], { capture: true }).catch(() => '');
    const match = /^ref: refs\/heads\/(\S+)\s+HEAD/m.exec(head);
    return match ? `refs/remotes/origin/${match[1]}` : 'FETCH_HEAD';
  }
  for (const candidate of revisionCandidates(branch)) {
    const found = await git(['rev-parse', '--verify', '--quiet', `${candidate}^{commit}`], { capture: true }).catch(() => '');
    if (found) return found;
  }
  throw new SyncFailure(`The branch, tag or commit "${branch}" was not found in the repository.`);
}

const hasSubmodules = (dir: string) => access(path.join(dir, '.gitmodules')).then(() => true, () => false);
