// Real git repositories for tests: a working clone pushed to a bare repository, which the HTTP and
// SSH servers of git-http-server.ts and git-ssh-server.ts serve to the git CLI.
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export { startGitHttpServer, type GitHttpServer, type GitHttpServerOptions } from './git-http-server.ts';
export { startSshGitServer, type SshGitServer } from './git-ssh-server.ts';

const run = promisify(execFile);

/** Environment that keeps the machine's own git configuration and prompts out of a test. */
export const HERMETIC_GIT_ENV: Record<string, string> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.com',
};

/** Runs git with the hermetic environment (plus `env`) and answers its trimmed stdout. */
export async function git(cwd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await run('git', args, { cwd, env: { ...process.env, ...HERMETIC_GIT_ENV, ...env }, maxBuffer: 64 * 1024 * 1024 });
    return stdout.trim();
  } catch (err) {
    const e = err as Error & { stderr?: string };
    throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${e.stderr || e.message}`);
  }
}

/** File contents by path; null deletes the file; an object sets the mode (0o755 for a script). */
export type RepositoryFiles = Record<string, string | null | { content: string; mode: number }>;

export interface RepositoryOptions {
  /** Directory that holds the bare repository `<name>.git` (default: a new temporary directory). Give
   *  several repositories the same root to serve them from one server and link them as submodules. */
  root?: string;
  /** Name of the bare repository without `.git` (default: `repo`). */
  name?: string;
  /** Default branch (default: `main`). */
  branch?: string;
  message?: string;
}

export interface GitRepository {
  name: string;
  /** The working clone the helpers commit in. */
  path: string;
  /** The bare repository (the remote): `<root>/<name>.git`. */
  bare: string;
  root: string;
  defaultBranch: string;
  /** Commits the files on the default branch and pushes; answers the new commit's sha. */
  commit(files: RepositoryFiles, message?: string): Promise<string>;
  /** Creates `name` from the default branch's head, commits `files` on it (if any), pushes it, and
   *  goes back to the default branch; answers the branch's head. */
  branch(name: string, files?: RepositoryFiles, message?: string): Promise<string>;
  /** Tags `ref` (default: the default branch's head), annotated when a message is given, and pushes
   *  the tag; answers the sha of the tagged commit. */
  tag(name: string, options?: { message?: string; ref?: string }): Promise<string>;
  /** Commits `files` on top of the default branch's head without moving any branch and pushes the
   *  commit to `ref` alone (refs/pull/7/head); answers its sha. For refspec tests. */
  pushRef(ref: string, files: RepositoryFiles, message?: string): Promise<string>;
  /** Adds `other` as a submodule at `subPath` and pushes; the URL defaults to `../<other>.git` when
   *  both live under one root (resolved against the clone's own remote, so it works over any
   *  transport), the other's bare path otherwise. Answers the new commit's sha. */
  addSubmodule(subPath: string, other: GitRepository, url?: string): Promise<string>;
  /** The sha a revision (branch, tag, sha; default the default branch) names in the bare repository. */
  head(revision?: string): Promise<string>;
  /** Runs git in the working clone. */
  git(...args: string[]): Promise<string>;
  /** Removes the working clone and the bare repository (and the root when it made one). */
  remove(): Promise<void>;
}

async function writeFiles(dir: string, files: RepositoryFiles): Promise<void> {
  for (const [file, value] of Object.entries(files)) {
    const target = path.join(dir, file);
    if (!target.startsWith(dir + path.sep)) throw new Error(`file outside the repository: ${file}`);
    if (value === null) {
      await rm(target, { force: true });
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    const content = typeof value === 'string' ? value : value.content;
    await writeFile(target, content);
    if (typeof value !== 'string') await chmod(target, value.mode);
  }
}

/** A working repository with `files` in its first commit, pushed to a bare repository. */
export async function makeRepository(files: RepositoryFiles, options: RepositoryOptions = {}): Promise<GitRepository> {
  const name = options.name ?? 'repo';
  const root = options.root ?? (await mkdtemp(path.join(tmpdir(), 'git-root-')));
  const defaultBranch = options.branch ?? 'main';
  const bare = path.join(root, `${name}.git`);
  await mkdir(root, { recursive: true });
  const work = await mkdtemp(path.join(tmpdir(), `git-work-${name}-`));
  await git(root, ['init', '--quiet', '--bare', '-b', defaultBranch, bare]);
  await git(work, ['init', '--quiet', '-b', defaultBranch]);
  await git(work, ['remote', 'add', 'origin', bare]);
  const inWork = (...args: string[]) => git(work, args);
  const commitAll = async (message: string) => {
    await inWork('add', '--all');
    await inWork('commit', '--quiet', '--allow-empty', '-m', message);
    return inWork('rev-parse', 'HEAD');
  };

  const repo: GitRepository = {
    name,
    path: work,
    bare,
    root,
    defaultBranch,
    async commit(more, message = 'Update files') {
      await writeFiles(work, more);
      const sha = await commitAll(message);
      await inWork('push', '--quiet', 'origin', `HEAD:refs/heads/${defaultBranch}`);
      return sha;
    },
    async branch(branchName, more = {}, message = `Work on ${branchName}`) {
      await inWork('checkout', '--quiet', '-b', branchName, defaultBranch);
      try {
        await writeFiles(work, more);
        const sha = Object.keys(more).length ? await commitAll(message) : await inWork('rev-parse', 'HEAD');
        await inWork('push', '--quiet', 'origin', `HEAD:refs/heads/${branchName}`);
        return sha;
      } finally {
        await inWork('checkout', '--quiet', defaultBranch);
      }
    },
    async tag(tagName, { message, ref = defaultBranch } = {}) {
      await inWork('tag', ...(message ? ['-a', '-m', message] : []), tagName, ref);
      await inWork('push', '--quiet', 'origin', `refs/tags/${tagName}`);
      return inWork('rev-parse', `${tagName}^{commit}`);
    },
    async pushRef(ref, more, message = `Change for ${ref}`) {
      await inWork('checkout', '--quiet', '--detach', defaultBranch);
      try {
        await writeFiles(work, more);
        const sha = await commitAll(message);
        await inWork('push', '--quiet', 'origin', `HEAD:${ref}`);
        return sha;
      } finally {
        await inWork('checkout', '--quiet', defaultBranch);
      }
    },
    async addSubmodule(subPath, other, url) {
      const source = url ?? (path.resolve(other.root) === path.resolve(root) ? `../${other.name}.git` : other.bare);
      // Local transports are refused for submodules by default since git 2.38.1; the fixture trusts its own.
      await inWork('-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', source, subPath);
      const sha = await commitAll(`Add submodule ${subPath}`);
      await inWork('push', '--quiet', 'origin', `HEAD:refs/heads/${defaultBranch}`);
      return sha;
    },
    head: (revision = defaultBranch) => git(bare, ['rev-parse', `${revision}^{commit}`]),
    git: (...args) => inWork(...args),
    async remove() {
      await rm(work, { recursive: true, force: true });
      await rm(options.root ? bare : root, { recursive: true, force: true });
    },
  };
  await writeFiles(work, files);
  await commitAll(options.message ?? 'Initial commit');
  await inWork('push', '--quiet', 'origin', `HEAD:refs/heads/${defaultBranch}`);
  return repo;
}
