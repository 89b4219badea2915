// A node's checkouts of projects by (project, revision): before a run reads a project, its node
// makes sure it holds the exact revision the run records, fetching that commit from the project's
// source with the project's credential when it does not, and refuses to run other files
// (docs/projects.md#several-nodes).
import { randomBytes } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { EnvConfig } from '../config/env.ts';
import type { Queryable } from '../db/database.ts';
import type { ProjectRow } from '../db/tables.ts';
import type { ExecOptions } from '../runs/run-kind.ts';
import { demoRepository, type DemoRepository } from './demo-repository.ts';
import type { ScmInputs } from './git-auth.ts';
import { checkedSource, GitFailure, gitSession, updateSubmodules, type CheckedSource, type Git, type GitRun } from './git-runner.ts';
import { branchProblem, commitOf, revisionCandidates, splitRefspecs } from './git-values.ts';
import { projectFilesDir, type ProjectSourcesView } from './local-sources.ts';
import { isDirectory, projectDir, requirementsDir, revisionsDir } from './paths.ts';
import { installRequirements } from './requirements.ts';
import { scmInputs } from './scm-credential.ts';
import { lookupsOf, type LookupContext, type LookupServices } from '../resources/credentials/dynamic-inputs.ts';
import { downloadArchive, keptArchive, unpackProjectArchive } from './archive-source.ts';
import { withProjectLock } from './project-lock.ts';

/** Revisions of one project a node keeps beyond those in use; the oldest used are dropped. */
export const KEPT_REVISIONS = 3;

const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const READY = 'ready';
const INCOMING = '.incoming-';
const EXPLANATION_LINES = 5;

/** What fetching a project needs from the database: the demo repository and the project's credential. */
export interface SourceAccess {
  demo: DemoRepository | null;
  inputs: ScmInputs | null;
}

export async function readSourceAccess(
  db: Queryable, env: Pick<EnvConfig, 'dataDir'>, project: Pick<ProjectRow, 'credential_id'>, lookups: LookupContext,
): Promise<SourceAccess> {
  return { demo: await demoRepository(db, env), inputs: await scmInputs(db, project.credential_id, lookups) };
}

/** What holding a revision needs of a run: git in its sandbox, its database and this node's directories. */
export interface CacheRun extends GitRun {
  db: Queryable;
  /** Read beforehand, for a caller whose database is gone when the files are taken (a launch's scan). */
  access?: SourceAccess;
  services: ProjectSourcesView & {
    settings: GitRun['services']['settings'];
    env: Pick<EnvConfig, 'projectsRoot' | 'localSourceDirs' | 'dataDir' | 'nodeName' | 'secretStoreUrl'>;
  };
}

/** Secret lookups of a run's credentials, as its service's settings allow them. */
const runLookups = (run: CacheRun): LookupContext => lookupsOf(run.services as LookupServices);

export type CachedProject = Pick<ProjectRow, 'id' | 'name' | 'local_path' | 'scm_type' | 'scm_url' | 'scm_branch' | 'scm_refspec' | 'scm_revision' | 'scm_track_submodules' | 'credential_id'>;

/** The columns of CachedProject, for a SELECT. */
export const CACHED_PROJECT_COLUMNS = 'id, name, local_path, scm_type, scm_url, scm_branch, scm_refspec, scm_revision, scm_track_submodules, credential_id';

/** The project files a run reads, copied for it alone, and the roles and collections installed for them. */
export interface RunFiles {
  dir: string;
  revision: string;
  /** Where the project's requirements were installed (search paths and sandbox reads). */
  requirements: string;
  /** The run no longer reads `requirements`: the node may drop that revision. */
  release(): void;
}

export type RunFilesResult = RunFiles | { problem: string };

// Revisions a run of this node still reads the requirements of: never dropped from under it.
const inUse = new Map<string, number>();

const cacheRoot = (env: Pick<EnvConfig, 'projectsRoot'>, localPath: string) => revisionsDir(env.projectsRoot, localPath);
const filesOf = (entry: string) => path.join(entry, 'files');

/** Where the requirements of one revision a node holds are installed. */
export const revisionRequirementsDir = (env: Pick<EnvConfig, 'projectsRoot'>, localPath: string, revision: string) =>
  path.join(cacheRoot(env, localPath), revision, 'requirements');
const requirementsOf = (entry: string) => path.join(entry, 'requirements');

function hold(entry: string): () => void {
  inUse.set(entry, (inUse.get(entry) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (inUse.get(entry) ?? 1) - 1;
    if (left > 0) inUse.set(entry, left);
    else inUse.delete(entry);
  };
}

/**
 * The files a run of `project` reads, copied to `target`: a manual project's directory on this
 * node; a git project's `revision` (the run's recorded one), or what `branch` names in its source
 * when the run overrides the project's branch. The copy is of a checkout whose HEAD was checked to
 * be that revision; anything else fails the run with an explanation.
 */
export async function filesForRun(run: CacheRun, project: CachedProject, want: { revision: string } | { branch: string }, target: string): Promise<RunFilesResult> {
  if (!project.scm_type) return manualFiles(run, project, target);
  if ('branch' in want) {
    const invalid = branchProblem(want.branch);
    if (invalid) return { problem: invalid };
  } else if (!COMMIT.test(want.revision)) {
    return { problem: `The project "${project.name}" has no revision recorded yet: update the project first.` };
  }
  const root = cacheRoot(run.services.env, project.local_path);
  return withProjectLock(root, async () => {
    const held = await holdRevision(run, project, want, root);
    if ('problem' in held) return held;
    const release = hold(held.entry);
    try {
      await utimes(path.join(held.entry, READY), new Date(), new Date());
      await dropOldRevisions(root);
      await cp(filesOf(held.entry), target, { recursive: true, verbatimSymlinks: true, filter: (source) => path.basename(source) !== '.git' });
      return { dir: target, revision: held.revision, requirements: requirementsOf(held.entry), release };
    } catch (err) {
      release();
      throw err;
    }
  });
}

async function manualFiles(run: CacheRun, project: CachedProject, target: string): Promise<RunFilesResult> {
  const dir = await projectFilesDir(run.services, project.local_path);
  if (!dir) return { problem: manualProjectMissing(project, run.services.env.nodeName) };
  await cp(dir, target, { recursive: true, verbatimSymlinks: true, filter: (source) => path.basename(source) !== '.git' });
  return { dir: target, revision: '', requirements: requirementsDir(run.services.env.projectsRoot, project.local_path), release: () => undefined };
}

/** Why a manual project cannot run on a node: its directory is not there. */
export const manualProjectMissing = (project: Pick<ProjectRow, 'name' | 'local_path'>, node: string) =>
  `The manual project "${project.name}" has no directory "${project.local_path}" on node ${node}: a manual project runs only on nodes holding its directory under the projects root.`;

/** The HEAD of a checkout, read in the sandbox, or '' when there is none. */
async function headOf(run: CacheRun, files: string): Promise<string> {
  const result = await run.exec('git', ['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: files, captureStdout: true, sandbox: { readable: [files] } });
  return result.code === 0 ? result.stdout.trim() : '';
}

type Held = { entry: string; revision: string } | { problem: string };

/** The cache entry of the wanted revision, made when this node does not hold it yet; its HEAD checked. */
async function holdRevision(run: CacheRun, project: CachedProject, want: { revision: string } | { branch: string }, root: string): Promise<Held> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  // Left by a node stopped while fetching (the lock says no fetch of this node is under way).
  for (const name of await readdir(root)) if (name.startsWith(INCOMING)) await rm(path.join(root, name), { recursive: true, force: true });
  if ('revision' in want && (await isReady(path.join(root, want.revision)))) return checkedEntry(run, project, root, want.revision);
  const incoming = path.join(root, `${INCOMING}${randomBytes(6).toString('hex')}`);
  try {
    const made = await fetchRevision(run, project, want, incoming);
    if ('problem' in made) return made;
    const entry = path.join(root, made.revision);
    if (!(await isReady(entry))) {
      await rm(entry, { recursive: true, force: true });
      await rename(incoming, entry);
    }
    return checkedEntry(run, project, root, made.revision);
  } finally {
    await rm(incoming, { recursive: true, force: true });
  }
}

const isReady = (entry: string) => stat(path.join(entry, READY)).then((s) => s.isFile(), () => false);

async function checkedEntry(run: CacheRun, project: CachedProject, root: string, revision: string): Promise<Held> {
  const entry = path.join(root, revision);
  // An archive's files have no HEAD: the revision is the SHA-1 checked when they were unpacked.
  const head = project.scm_type === 'archive' ? (await readFile(path.join(entry, READY), 'utf8').catch(() => '')).trim() : await headOf(run, filesOf(entry));
  if (head === revision) return { entry, revision };
  await rm(entry, { recursive: true, force: true });
  return {
    problem: `The copy of the project on node ${run.services.env.nodeName} is at ${head || 'no revision'}, not at the recorded revision ${revision}: `
      + 'the run was stopped rather than run other files. Run it again to fetch the revision anew.',
  };
}

/**
 * Where the revision is fetched from: this node's own checkout when it has the commit (no network),
 * else the project's source (`upstream`, which submodules' relative URLs are resolved against).
 */
async function sourcesFor(run: CacheRun, project: CachedProject, revision: string | null, access: SourceAccess): Promise<{ from: CheckedSource; upstream: CheckedSource | null } | { problem: string }> {
  const upstream = await checkedSource(run.services, project, access.demo);
  const checkout = projectDir(run.services.env.projectsRoot, project.local_path);
  if (revision && checkout && (await isDirectory(path.join(checkout, '.git')))) {
    const has = await run.exec('git', ['cat-file', '-e', '--end-of-options', `${revision}^{commit}`], { cwd: checkout, sandbox: { readable: [checkout] } });
    if (has.code === 0) return { from: { remote: checkout, local: true }, upstream: 'problem' in upstream ? null : upstream };
  }
  return 'problem' in upstream ? upstream : { from: upstream, upstream };
}

/**
 * Fetches one revision into `dir` (a new directory): the exact commit, or every branch and tag of
 * the source (as a project update fetches) when the source does not serve a commit by its id or
 * the run names a branch; checks it out with its submodules and installs its requirements.
 */
async function fetchRevision(run: CacheRun, project: CachedProject, want: { revision: string } | { branch: string }, dir: string): Promise<{ revision: string } | { problem: string }> {
  if (project.scm_type === 'archive') return fetchArchiveRevision(run, project, want, dir);
  const wanted = 'revision' in want ? want.revision : null;
  const access = run.access ?? (await readSourceAccess(run.db, run.services.env, project, runLookups(run)));
  const sources = await sourcesFor(run, project, wanted, access);
  if ('problem' in sources) return sources;
  const source = sources.from;
  const files = filesOf(dir);
  await mkdir(files, { recursive: true, mode: 0o700 });
  const log: string[] = [];
  const quiet = quietRun(run, log);
  const session = await gitSession(quiet, dir, source, access.inputs);
  const git: Git = (args, options = {}) => session.git(args, { cwd: files, ...options, capture: true });
  const allowFile = source.local;
  const fetchAll = () => git(['fetch', '--tags', '--force', '--', 'origin', '+refs/heads/*:refs/remotes/origin/*', ...splitRefspecs(String(project.scm_refspec))], { allowFile });
  try {
    await git(['init', '--quiet']);
    await git(['remote', 'add', '--', 'origin', source.remote]);
    let revision = wanted;
    if (revision) {
      const exact = await git(['fetch', '--force', '--', 'origin', revision], { allowFile }).then(() => true, () => false);
      if (!exact) await fetchAll();
      if (!(await git(commitOf(revision)).catch(() => ''))) {
        return { problem: `The recorded revision ${revision} of the project "${project.name}" could not be fetched from its source on node ${run.services.env.nodeName}: it is not in the repository any more (force-pushed or deleted?). Update the project and run again.` };
      }
    } else {
      const branch = (want as { branch: string }).branch;
      await fetchAll();
      for (const candidate of revisionCandidates(branch)) {
        revision = await git(commitOf(candidate)).catch(() => '');
        if (revision) break;
      }
      if (!revision || !COMMIT.test(revision)) return { problem: `The branch, tag or commit "${branch}" is not in the project's repository: check the name.` };
    }
    await git(['checkout', '--force', '--detach', revision]);
    if (sources.upstream && sources.upstream !== source) {
      // Submodules' relative URLs are the project's source's neighbours, not this node's checkout's.
      await git(['remote', 'set-url', '--', 'origin', sources.upstream.remote]);
      if (sources.upstream.local) session.localReads.push(sources.upstream.remote);
    }
    await updateSubmodules(quiet.services, git, files, project.scm_track_submodules === true, session.localReads);
    const problem = await installRequirements(quiet, files, requirementsOf(dir));
    if (problem) return { problem: withLog(problem, log) };
    await writeFile(path.join(dir, READY), `${revision}\n`);
    return { revision };
  } catch (err) {
    if (!(err instanceof GitFailure)) throw err;
    const what = wanted ? `the recorded revision ${wanted}` : `"${(want as { branch: string }).branch}"`;
    return { problem: withLog(`The project "${project.name}" at ${what} could not be fetched from its source on node ${run.services.env.nodeName}: ${err.message}`, log) };
  } finally {
    await session.auth.close();
  }
}

/**
 * An archive project's recorded revision: the file this node's update kept, else its URL downloaded
 * again, refused when the file changed since the update.
 */
async function fetchArchiveRevision(run: CacheRun, project: CachedProject, want: { revision: string } | { branch: string }, dir: string): Promise<{ revision: string } | { problem: string }> {
  if (!('revision' in want)) return { problem: `The archive project "${project.name}" has no branches: run it without scm_branch.` };
  const kept = await keptArchive(run.services.env.projectsRoot, project.local_path, want.revision);
  const downloaded = kept ? { bytes: kept, revision: want.revision } : await downloadArchive(run.services, project.scm_url, (run.access ?? (await readSourceAccess(run.db, run.services.env, project, runLookups(run)))).inputs);
  if ('problem' in downloaded) return downloaded;
  if (downloaded.revision !== want.revision) {
    return {
      problem: `The archive of the project "${project.name}" is now at revision ${downloaded.revision} on node ${run.services.env.nodeName}, not at the recorded revision ${want.revision}: `
        + 'the run was stopped rather than run other files. Update the project and run again.',
    };
  }
  const files = filesOf(dir);
  await mkdir(files, { recursive: true, mode: 0o700 });
  const unpacked = await unpackProjectArchive(run.services, downloaded.bytes, files);
  if ('problem' in unpacked) return unpacked;
  const log: string[] = [];
  const problem = await installRequirements(quietRun(run, log), files, requirementsOf(dir));
  if (problem) return { problem: withLog(problem, log) };
  await writeFile(path.join(dir, READY), `${want.revision}\n`);
  return { revision: want.revision };
}

const withLog = (problem: string, log: string[]) => {
  const tail = log.filter((line) => line.trim()).slice(-EXPLANATION_LINES).join('\n');
  return tail ? `${problem}\n${tail}` : problem;
};

/** The run as fetching sees it: what git and ansible-galaxy print is kept for an explanation, not added to the run's output. */
function quietRun(run: CacheRun, log: string[]): CacheRun {
  return {
    ...run,
    output: async (text) => void log.push(text),
    exec: async (command, args, options: ExecOptions = {}) => {
      const stdout: string[] = [];
      const result = await run.exec(command, args, {
        ...options,
        onLine: (line, stream) => (stream === 'stdout' && options.captureStdout ? stdout.push(line) : log.push(line)),
      });
      return { ...result, stdout: stdout.join('\n') };
    },
  };
}

/** Drops the revisions of a project beyond the KEPT_REVISIONS last used, except those a run still reads. */
async function dropOldRevisions(root: string): Promise<void> {
  const entries: { entry: string; used: number }[] = [];
  for (const name of await readdir(root)) {
    if (name.startsWith('.')) continue;
    const entry = path.join(root, name);
    const used = await stat(path.join(entry, READY)).then((s) => s.mtimeMs, () => 0);
    entries.push({ entry, used });
  }
  entries.sort((a, b) => b.used - a.used);
  for (const { entry } of entries.slice(KEPT_REVISIONS)) if (!inUse.has(entry)) await rm(entry, { recursive: true, force: true });
}
