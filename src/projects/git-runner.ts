// git as a project update and a node fetching a revision run it: in the run's sandbox, with the
// project's credential, only on sources checked again at run time (docs/projects.md, "What git is given").
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { UnifiedJobRow } from '../db/tables.ts';
import type { ExecOptions, ExecResult } from '../runs/run-kind.ts';
import { gitAuthentication, type GitAuth } from './git-auth.ts';
import { branchProblem, refspecProblem } from './git-values.ts';
import { checkLocalSource, type ProjectSourcesView } from './local-sources.ts';
import type { DemoRepository } from './demo-repository.ts';
import { localRepositoryPath, scmUrlProblem, withoutUser } from './scm-url.ts';

/** A git step that failed or was stopped: its message explains the run's failure. */
export class GitFailure extends Error {}

// Transports git may use (GIT_ALLOW_PROTOCOL overrides any configuration, submodules included);
// file only when every local repository of the run was checked against the allowed directories.
const REMOTE_PROTOCOLS = 'https:http:ssh:git';
const MAX_SUBMODULE_DEPTH = 8;

export interface GitOptions {
  cwd?: string;
  capture?: boolean;
  /** Let git read local repositories (file://, paths): only ones checked by checkLocalSource. */
  allowFile?: boolean;
}

export type Git = (args: string[], options?: GitOptions) => Promise<string>;

export type CheckedSource = { remote: string; local: boolean };

/** What running git needs of a run (a project update's, a job's, a scan's). */
export interface GitRun {
  services: ProjectSourcesView;
  privateDir: string;
  signal: AbortSignal;
  output(text: string): Promise<void>;
  exec(command: string, args: string[], options?: ExecOptions): Promise<ExecResult>;
}

/**
 * The remote git is given, checked again now (the values may have been stored before a check
 * existed, or PROJECT_LOCAL_SOURCE_DIRS changed since): a local repository as its checked real
 * path; or why git may not run. The demo project's repository is this node's own copy of it.
 */
export async function checkedSource(
  service: ProjectSourcesView, job: Pick<UnifiedJobRow, 'scm_url' | 'scm_branch' | 'scm_refspec'>, demo: DemoRepository | null,
): Promise<{ problem: string } | CheckedSource> {
  const problem = scmUrlProblem(String(job.scm_url)) ?? branchProblem(String(job.scm_branch ?? '')) ?? refspecProblem(String(job.scm_refspec ?? ''));
  if (problem) return { problem };
  const local = demo && localRepositoryPath(job.scm_url) === demo.recorded ? demo.local : localRepositoryPath(job.scm_url);
  if (!local) return { remote: withoutUser(job.scm_url.trim()), local: false };
  const checked = await checkLocalSource(service, local);
  return 'problem' in checked ? checked : { remote: checked.path, local: true };
}

export interface GitSession {
  git: Git;
  auth: GitAuth;
  /** The environment git runs with (for the run's recorded invocation). */
  env(allowFile: boolean): Record<string, string>;
  /** The local repositories git may read, each checked by checkLocalSource: the only ones its sandbox shows. */
  localReads: string[];
}

/**
 * git for one run in `dir` with the credential's inputs: shown in the output unless captured,
 * writing only `dir`, failing with GitFailure on a non-zero exit or when the run is stopped.
 * Close `auth` when done.
 */
export async function gitSession(run: GitRun, dir: string, source: CheckedSource, inputs: Parameters<typeof gitAuthentication>[1]): Promise<GitSession> {
  const auth = await gitAuthentication(run.privateDir, inputs);
  const env = (allowFile: boolean) => ({ ...auth.env, GIT_PROTOCOL_FROM_USER: '0', GIT_ALLOW_PROTOCOL: allowFile ? `${REMOTE_PROTOCOLS}:file` : REMOTE_PROTOCOLS });
  const localReads: string[] = source.local ? [source.remote] : [];
  const git: Git = async (args, options = {}) => {
    if (!options.capture) await run.output(`$ git ${args.join(' ')}`);
    const sandbox = { writable: [dir], readable: options.allowFile ? localReads : [] };
    const result = await run.exec('git', args, { cwd: options.cwd ?? dir, env: env(options.allowFile === true), secrets: auth.secrets, captureStdout: options.capture, sandbox });
    if (run.signal.aborted) throw new GitFailure('stopped');
    if (result.code !== 0) throw new GitFailure(`git ${args[0]} failed (exit code ${result.code}).`);
    return result.stdout.trim();
  };
  return { git, auth, env, localReads };
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
export async function updateSubmodules(service: ProjectSourcesView, git: Git, dir: string, track: boolean, localReads: string[], depth = 0): Promise<void> {
  if (!(await hasSubmodules(dir))) return;
  if (depth >= MAX_SUBMODULE_DEPTH) throw new GitFailure(`Submodules are nested more than ${MAX_SUBMODULE_DEPTH} deep.`);
  await git(['submodule', 'init'], { cwd: dir });
  await git(['submodule', 'sync'], { cwd: dir });
  let allowFile = false;
  for (const [key, url] of await configEntries(git, ['--get-regexp', '^submodule\\..*\\.url$'], dir)) {
    const name = key.slice('submodule.'.length, -'.url'.length);
    const problem = scmUrlProblem(url);
    if (problem) throw new GitFailure(`Submodule "${name}": ${problem}`);
    const local = localRepositoryPath(url);
    if (!local) continue;
    const checked = await checkLocalSource(service, local);
    if ('problem' in checked) throw new GitFailure(`Submodule "${name}": ${checked.problem}`);
    // git reads exactly the path that was checked.
    await git(['config', '--', key, checked.path], { cwd: dir });
    localReads.push(checked.path);
    allowFile = true;
  }
  await git(['submodule', 'update', '--init', '--force', ...(track ? ['--remote'] : [])], { cwd: dir, allowFile });
  for (const [, subPath] of await configEntries(git, ['-f', '.gitmodules', '--get-regexp', '^submodule\\..*\\.path$'], dir)) {
    const subDir = path.resolve(dir, subPath);
    if (subDir.startsWith(dir + path.sep) && (await access(path.join(subDir, '.git')).then(() => true, () => false))) {
      await updateSubmodules(service, git, subDir, track, localReads, depth + 1);
    }
  }
}
