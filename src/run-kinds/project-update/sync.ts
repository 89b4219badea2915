import { lookupsOf } from '../../resources/credentials/dynamic-inputs.ts';
import { lstat, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ProjectRow, UnifiedJobRow } from '../../db/tables.ts';
import type { RunContext, RunOutcome } from '../../runs/run-kind.ts';
import { demoRepository } from '../../projects/demo-repository.ts';
import { scanProject } from '../../projects/discovery.ts';
import { checkedSource, GitFailure, gitSession, updateSubmodules, type Git } from '../../projects/git-runner.ts';
import { commitOf, revisionCandidates, splitRefspecs } from '../../projects/git-values.ts';
import { projectDir, isDirectory, requirementsDir } from '../../projects/paths.ts';
import { installRequirements } from '../../projects/requirements.ts';
import { scmInputs } from '../../projects/scm-credential.ts';
import { recordInvocation } from '../../runs/invocation.ts';
import { syncArchive } from './sync-archive.ts';

const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** The branches, tags and extra refspecs (scm_refspec) a sync fetches, as AWX's project update playbook does. */
export const syncRefspecs = (refspec: string) => ['+refs/heads/*:refs/remotes/origin/*', ...splitRefspecs(refspec)];

/**
 * Runs one project update (an archive project's: sync-archive.ts) with the git CLI: clone (or fetch into) the checkout under the projects
 * root, check out the branch, tag or commit, update submodules, then install requirements. What it
 * found (revision, playbooks, inventory files) is recorded on the project, so that every node
 * answers alike (docs/projects.md, "Several nodes").
 */
export async function syncProject(job: UnifiedJobRow, run: RunContext): Promise<RunOutcome> {
  const dir = projectDir(run.services.env.projectsRoot, job.local_path);
  if (!dir) return { status: 'error', explanation: `Invalid project path "${job.local_path}".` };
  const [sharing] = await run.db.query<Pick<ProjectRow, 'name'>>('SELECT name FROM projects WHERE local_path = $1 AND id <> $2 LIMIT 1', [job.local_path, job.project_id]);
  if (sharing) return { status: 'failed', explanation: `The directory "${job.local_path}" is used by another project: the sync would change its files.` };
  if (await lstat(dir).then((s) => s.isSymbolicLink(), () => false)) {
    return { status: 'failed', explanation: `The checkout "${job.local_path}" is a link: the sync does not write through links.` };
  }
  if (job.scm_type === 'archive') return syncArchive(job, run, dir, (found) => recordFound(run, job, found));
  const source = await checkedSource(run.services, job, await demoRepository(run.db, run.services.env));
  if ('problem' in source) return { status: 'failed', explanation: source.problem };
  const session = await gitSession(run, dir, source, await scmInputs(run.db, job.credential_id, lookupsOf(run.services, run.signal)));
  const { git } = session;
  const allowFile = source.local;
  const refspecs = syncRefspecs(String(job.scm_refspec));
  await recordInvocation(run.db, job.id, { args: ['git', 'fetch', '--prune', '--tags', '--force', '--', source.remote, ...refspecs], cwd: dir, env: session.env(allowFile), secrets: session.auth.secrets });
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
    await updateSubmodules(run.services, git, dir, job.scm_track_submodules === true, session.localReads);
    const revision = await git(['rev-parse', 'HEAD'], { capture: true });
    await run.output(`Checked out ${job.scm_branch || 'the default branch'} at revision ${revision}.`);
    const problem = await installRequirements(run, dir, requirementsDir(run.services.env.projectsRoot, job.local_path));
    if (problem) return { status: 'failed', explanation: problem, updates: { scm_revision: revision } };
    await recordFound(run, job, dir);
    return { status: 'successful', updates: { scm_revision: revision } };
  } catch (err) {
    if (err instanceof GitFailure) return { status: 'failed', explanation: err.message };
    throw err;
  } finally {
    await session.auth.close();
  }
}

/** The playbooks and inventory files of the checkout, for the project's playbooks/, inventories/ and template checks on every node. */
async function recordFound(run: RunContext, job: UnifiedJobRow, dir: string): Promise<void> {
  const found = await scanProject(dir);
  await run.db.query('UPDATE projects SET playbook_files = $2, inventory_files = $3 WHERE id = $1', [job.project_id, JSON.stringify(found.playbooks), JSON.stringify(found.inventories)]);
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
    throw new GitFailure('The repository has no default branch to check out.');
  }
  for (const candidate of revisionCandidates(branch)) {
    const found = await commit(candidate);
    if (found) return found;
  }
  throw new GitFailure(`The branch, tag or commit "${branch}" was not found in the repository.`);
}
