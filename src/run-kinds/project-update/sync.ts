import { access, lstat, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ProjectRow, UnifiedJobRow } from '../../db/tables.ts';
import type { RunContext, RunOutcome } from '../../runs/run-kind.ts';
import { gitAuthentication } from '../../projects/git-auth.ts';
import { branchProblem, commitOf, refspecProblem, revisionCandidates, splitRefspecs } from '../../projects/git-values.ts';
import { checkLocalSource, type ProjectSourcesView } from '../../projects/local-sources.ts';
import { projectDir, isDirectory } from '../../projects/paths.ts';
import { installRequirements } from '../../projects/requirements.ts';
import { localRepositoryPath, scmUrlProblem, withoutUser } from '../../projects/scm-url.ts';
import { scmInputs } from '../../projects/scm-credential.ts';
import { recordInvocation } from '../../runs/invocation.ts';

class SyncFailure extends Error {}

// Transports git may use (GIT_ALLOW_PROTOCOL overrides any configuration, submodules included);
// file only when every local repository of the sync was checked against the allowed directories.
const REMOTE_PROTOCOLS = 'https:http:ssh:git';
const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const MAX_SUBMODULE_DEPTH = 8;

interface GitOptions {
  cwd?: string;
  capture?: boolean;
  /** Let git read local repositories (file://, paths): only ones checked by checkLocalSource. */
  allowFile?: boolean;
}

type Git = (args: string[], options?: GitOptions) => Promise<string>;

/**
 * The remote git is given, checked again now (the values may have been stored before a check
 * existed, or PROJECT_LOCAL_SOURCE_DIRS changed since): a local repository as its checked real
 * path; or why the sync may not run.
 */
async function checkedSource(service: ProjectSourcesView, job: Pick<UnifiedJobRow, 'scm_url' | 'scm_branch' | 'scm_refspec'>): Promise<{ problem: string } | { remote: string; local: boolean }> {
  const problem = scmUrlProblem(String(job.scm_url)) ?? branchProblem(String(job.scm_branch)) ?? refspecProblem(String(job.scm_refspec));
  if (problem) return { problem };
  const local = localRepositoryPath(job.scm_url);
  if (!local) return { remote: withoutUser(job.scm_url.trim()), local: false };
  const checked = await checkLocalSource(service, local);
  return 'problem' in checked ? checked : { remote: checked.path, local: true };
}

/**
 * Runs one project update with the git CLI: clone (or fetch into) the checkout under the projects
 * root, check out the branch, tag or commit, update submodules, then install requirements.
 */
export async function syncProject(job: UnifiedJobRow, run: RunContext): Promise<RunOutcome> {
  const dir = projectDir(run.services.env.projectsRoot, job.local_path);
  if (!dir) return { status: 'error', explanation: `Invalid project path "${job.local_path}".` };
  const source = await checkedSource(run.services, job);
  if ('problem' in source) return { status: 'failed', explanation: source.problem };
  const [sharing] = await run.db.query<Pick<ProjectRow, 'name'>>('SELECT name FROM projects WHERE local_path = $1 AND id <> $2 LIMIT 1', [job.local_path, job.project_id]);
  if (sharing) return { status: 'failed', explanation: `The directory "${job.local_path}" is used by another project: the sync would change its files.` };
  if (await lstat(dir).then((s) => s.isSymbolicLink(), () => false)) {
    return { status: 'failed', explanation: `The checkout "${job.local_path}" is a link: the sync does not write through links.` };
  }
  const inputs = await scmInputs(run.db, job.credential_id);
  const auth = await gitAuthentication(run.privateDir, inputs);
  const gitEnv = (allowFile: boolean) => ({ ...auth.env, GIT_PROTOCOL_FROM_USER: '0', GIT_ALLOW_PROTOCOL: allowFile ? `${REMOTE_PROTOCOLS}:file` : REMOTE_PROTOCOLS });
  // The local repositories git may read, each checked by checkLocalSource: the only ones its sandbox shows.
  const localReads: string[] = source.local ? [source.remote] : [];
  const git: Git = async (args, options = {}) => {
    const env = gitEnv(options.allowFile === true);
    if (!options.capture) await run.output(`$ git ${args.join(' ')}`);
    const sandbox = { writable: [dir], readable: options.allowFile ? localReads : [] };
    const result = await run.exec('git', args, { cwd: options.cwd ?? dir, env, secrets: auth.secrets, captureStdout: options.capture, sandbox });
    if (run.signal.aborted) throw new SyncFailure('stopped');
    if (result.code !== 0) throw new SyncFailure(`git ${args[0]} failed (exit code ${result.code}).`);
    return result.stdout.trim();
  };
  const allowFile = source.local;
  const refspecs = ['+refs/heads/*:refs/remotes/origin/*', ...splitRefspecs(String(job.scm_refspec))];
  await recordInvocation(run.db, job.id, { args: ['git', 'fetch', '--prune', '--tags', '--force', '--', source.remote, ...refspecs], cwd: dir, env: gitEnv(allowFile), secrets: auth.secrets });
  try {
    if (job.scm_delete_on_update) {
      await run.output(`Deleting ${dir} before the update (scm_delete_on_update).`);
      await rm(dir, { recursive: true, force: true });
    }
    if (!(await isDirectory(path.join(dir, '.git')))) {
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      await git(['init', '--quiet']);
      await git(['remote', 'add', '--', 'origin', source.remote]);
    } else {
      await git(['remote', 'set-url', '--', 'origin', source.remote]);
    }
    await git(['fetch', '--prune', '--tags', '--force', '--progress', '--', 'origin', ...refspecs], { allowFile });
    const target = await resolveTarget(job.scm_branch, git, allowFile);
    if (job.scm_clean) await git(['clean', '-ffdx']);
    await git(['checkout', '--force', '--detach', target]);
    if (job.scm_clean) await git(['reset', '--hard', target]);
    await updateSubmodules(run.services, git, dir, job.scm_track_submodules === true, 0, localReads);
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

/** The commit to check out: the branch, a tag, a commit id, or the remote's default branch. */
async function resolveTarget(branch: string, git: Git, allowFile: boolean): Promise<string> {
  const commit = async (revision: string) => {
    const found = await git(commitOf(revision), { capture: true }).catch(() => '');
    return COMMIT.test(found) ? found : '';
  };
  if (!branch) {
    const head = await git(['ls-remote', '--symref', '--', 'origin', 'HEAD'], { capture: true, allowFile }).catch(() => '');
    const match = /^ref: refs\/heads\/(\S+)\s+HEAD/m.exec(head);
    const found = (match && (await commit(`refs/remotes/origin/${match[1]}`))) || (await commit('FETCH_HEAD'));
    if (found) return found;
    throw new SyncFailure('The repository has no default branch to check out.');
  }
  for (const candidate of revisionCandidates(branch)) {
    const found = await commit(candidate);
    if (found) return found;
  }
  throw new SyncFailure(`The branch, tag or commit "${branch}" was not found in the repository.`);
}

const hasSubmodules = (dir: string) => access(path.join(dir, '.gitmodules')).then(() => true, () => false);

/** `git config -z --get-regexp` output as [key, value] pairs (none when nothing matches). */
async function configEntries(git: Git, args: string[], cwd: string): Promise<[string, string][]> {
  const out = await git(['config', '-z', ...args], { cwd, capture: true }).catch(() => '');
  return out
    .split('\0')
    .filter(Boolean)
    .map((entry) => {
      const newline = entry.indexOf('\n');
      return newline < 0 ? [entry, ''] : [entry.slice(0, newline), entry.slice(newline + 1)];
    });
}

/**
 * Updates the submodules of `dir` one level at a time, so that every URL is checked as the
 * project's own is before git fetches from it (a local one only from the allowed directories,
 * never another project's checkout), then the submodules' own submodules.
 */
async function updateSubmodules(service: ProjectSourcesView, git: Git, dir: string, track: boolean, depth: number, localReads: string[]): Promise<void> {
  if (!(await hasSubmodules(dir))) return;
  if (depth >= MAX_SUBMODULE_DEPTH) throw new SyncFailure(`Submodules are nested more than ${MAX_SUBMODULE_DEPTH} deep.`);
  await git(['submodule', 'init'], { cwd: dir });
  await git(['submodule', 'sync'], { cwd: dir });
  let allowFile = false;
  for (const [key, url] of await configEntries(git, ['--get-regexp', '^submodule\\..*\\.url$'], dir)) {
    const name = key.slice('submodule.'.length, -'.url'.length);
    const problem = scmUrlProblem(url);
    if (problem) throw new SyncFailure(`Submodule "${name}": ${problem}`);
    const local = localRepositoryPath(url);
    if (!local) continue;
    const checked = await checkLocalSource(service, local);
    if ('problem' in checked) throw new SyncFailure(`Submodule "${name}": ${checked.problem}`);
    // git reads exactly the path that was checked.
    await git(['config', '--', key, checked.path], { cwd: dir });
    localReads.push(checked.path);
    allowFile = true;
  }
  await git(['submodule', 'update', '--init', '--force', ...(track ? ['--remote'] : [])], { cwd: dir, allowFile });
  for (const [, subPath] of await configEntries(git, ['-f', '.gitmodules', '--get-regexp', '^submodule\\..*\\.path$'], dir)) {
    const subDir = path.resolve(dir, subPath);
    if (subDir.startsWith(dir + path.sep) && (await access(path.join(subDir, '.git')).then(() => true, () => false))) {
      await updateSubmodules(service, git, subDir, track, depth + 1, localReads);
    }
  }
}
