import { execFile } from 'node:child_process';
import { lstatSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Debian's bubblewrap: every run's processes start inside it (docs/security.md, "Runs are isolated"). */
export const BWRAP = '/usr/bin/bwrap';
export const SANDBOX_INSTALL_COMMAND = 'apt-get install bubblewrap';

/** The system directories a run sees, read-only: the Ansible runtime and what it runs on. */
const SYSTEM_DIRS = ['/usr', '/etc'];
/** Top-level names that are links into /usr on merged-/usr systems, directories elsewhere. */
const ROOT_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** Where a resolver managed by systemd keeps the file /etc/resolv.conf links to. */
const RESOLVER_DIRS = ['/run/systemd/resolve'];

/** A directory an administrator shows to runs (AWX_ISOLATION_SHOW_PATHS: HOST-DIR[:SANDBOX-DIR[:ro|rw]]). */
export interface ShownPath {
  source: string;
  target: string;
  writable: boolean;
}

export interface SandboxLayout {
  /** The run's own directories, read-write: its private directory, the checkout a project update writes. */
  writable: string[];
  /** Directories the run reads: a project's checkout, its installed requirements. */
  readable: string[];
  /** Shown by an administrator (AWX_ISOLATION_SHOW_PATHS). */
  shown: ShownPath[];
  /** Hidden by an administrator inside what runs would otherwise see (AWX_ISOLATION_HIDE_PATHS). */
  hidden: string[];
  /** The service's own directories (SVC_DATA_DIR, SVC_PROJECTS_ROOT): empty inside, whatever is shown. */
  private: string[];
  /** Working directory inside the sandbox. */
  cwd: string;
  /** The run's HOME: an empty private directory inside. */
  home?: string;
}

/** AWX_ISOLATION_SHOW_PATHS items as mounts; the default mode is read-only, `rw` makes one writable. */
export function shownPaths(items: readonly string[]): ShownPath[] {
  return items.map((item) => {
    const [source, target, options] = item.split(':');
    return { source, target: target || source, writable: options === 'rw' };
  });
}

const exists = (p: string) => {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
};

let rootEntriesFound: string[] | null = null;

/** /bin, /lib... as they are on this machine (read once): links recreated as links, directories bound read-only. */
function rootEntries(): string[] {
  if (rootEntriesFound) return rootEntriesFound;
  const args: string[] = [];
  for (const dir of ROOT_LINKS) {
    const info = (() => {
      try {
        return lstatSync(dir);
      } catch {
        return null;
      }
    })();
    if (!info) continue;
    if (info.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else if (info.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  rootEntriesFound = args;
  return args;
}

const isInside = (child: string, parent: string) => child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);

/**
 * bubblewrap's arguments for one command: a new PID, IPC and UTS namespace that dies with the
 * service (--die-with-parent: a node killed with SIGKILL leaves nothing running), the system
 * directories read-only, a private /tmp and HOME, and only the directories
 * the layout names. The network is the host's: playbooks manage remote hosts.
 */
export function sandboxArgs(layout: SandboxLayout, command: string, args: readonly string[]): string[] {
  // No --new-session: the sandbox's init stays in the process group the run's processes are
  // stopped through, so a SIGKILL of the group ends the namespace even when bubblewrap is killed
  // before its child has asked to die with it. Runs start without a controlling terminal
  // (detached), so there is no terminal to inject input into, which --new-session guards against.
  const out = ['--die-with-parent', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
  for (const dir of SYSTEM_DIRS) out.push('--ro-bind', dir, dir);
  out.push(...rootEntries());
  for (const dir of RESOLVER_DIRS) out.push('--ro-bind-try', dir, dir);
  out.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--dir', '/var', '--tmpfs', '/var/tmp');
  if (layout.home && path.isAbsolute(layout.home)) out.push('--tmpfs', layout.home);
  for (const shown of layout.shown) if (exists(shown.source)) out.push(shown.writable ? '--bind' : '--ro-bind', shown.source, shown.target);
  const readable = layout.readable.filter((dir) => !layout.writable.some((w) => isInside(dir, w)));
  const insidePrivate = (dir: string) => layout.private.some((p) => isInside(dir, p));
  const bindReadable = (dirs: string[]) => dirs.forEach((dir) => out.push('--ro-bind-try', dir, dir));
  bindReadable(readable.filter((dir) => !insidePrivate(dir)));
  for (const hidden of layout.hidden) {
    if (!exists(hidden)) continue;
    if (statSync(hidden).isDirectory()) out.push('--tmpfs', hidden);
    else out.push('--ro-bind', '/dev/null', hidden);
  }
  // The service's directories are emptied whatever shows them; the run's own parts inside come back after.
  for (const dir of layout.private) out.push('--tmpfs', dir);
  bindReadable(readable.filter(insidePrivate));
  for (const dir of layout.writable) out.push('--bind', dir, dir);
  out.push('--chdir', layout.cwd, '--', command, ...args);
  return out;
}

export interface SandboxStatus {
  /** bubblewrap is installed and can make its namespaces on this node. */
  available: boolean;
  bwrap: string;
  version: string | null;
  /** Empty when available; otherwise why not and how to fix it. */
  error: string;
}

/** Starts `true` in a sandbox as runs get one: what fails here would fail every run. */
export async function probeSandbox(bwrap = BWRAP): Promise<SandboxStatus> {
  const base = { available: false, bwrap, version: null as string | null };
  try {
    base.version = (await run(bwrap, ['--version'], { timeout: 10_000 })).stdout.trim().replace(/^bubblewrap\s+/, '') || null;
  } catch {
    return { ...base, error: `Run isolation: ${bwrap} was not found. Install it with: ${SANDBOX_INSTALL_COMMAND}` };
  }
  const args = sandboxArgs({ writable: [], readable: [], shown: [], hidden: [], private: [], cwd: '/' }, 'true', []);
  try {
    await run(bwrap, args, { timeout: 10_000 });
    return { ...base, available: true, error: '' };
  } catch (err) {
    const reason = String((err as { stderr?: string }).stderr || (err as Error).message).trim().split('\n')[0];
    return {
      ...base,
      error:
        `Run isolation: bubblewrap cannot create its namespaces here (${reason}). Allow unprivileged user namespaces ` +
        '(sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0), or run the service ' +
        'where they are allowed; only if runs may reach this machine, turn isolation off with the AWX_ISOLATION_ENABLED setting.',
    };
  }
}

let cached: Promise<SandboxStatus> | null = null;

/** Whether this node can isolate runs, probed once. */
export function nodeSandbox(): Promise<SandboxStatus> {
  cached ??= probeSandbox();
  return cached;
}
