import { appendFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { EnvConfig } from '../config/env.ts';
import { ensurePrivateDirectory } from '../config/file-modes.ts';

const PROCESSES_FILE = '.processes';

type Node = Pick<EnvConfig, 'dataDir' | 'nodeName'>;

/**
 * Where a node keeps the private directories of its runs (one directory per run): inside the
 * data directory, so each installation has its own (two on one machine never meet, and the
 * clean-up at start sees only its own), private with it, and never a path another user of the
 * machine could make first, as one in the shared temporary directory could be.
 */
export function runDirectoriesRoot(node: Node): string {
  const name = node.nodeName.replace(/[^\w.-]/g, '_');
  return path.join(node.dataDir, 'runs', /^\.*$/.test(name) ? `_${name}` : name);
}

/** Makes the node's run directory root, refusing one that is not private to this user (see ensurePrivateDirectory). */
export async function ensureRunDirectoriesRoot(node: Node): Promise<string> {
  const root = runDirectoriesRoot(node);
  await ensurePrivateDirectory(path.dirname(root), 'the run directory');
  await ensurePrivateDirectory(root, 'the run directory');
  return root;
}

export async function makeRunDirectory(node: Node, jobId: number): Promise<string> {
  const root = await ensureRunDirectoriesRoot(node);
  return mkdtemp(path.join(root, `drover-run-${jobId}-`));
}

/** The kernel's start time of a process (field 22 of /proc/<pid>/stat), which tells a reused pid apart. */
async function processStartTime(pid: number): Promise<string | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which is in parentheses and may hold spaces; starttime is the 20th.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** The process group of a process (field 5 of /proc/<pid>/stat). */
async function processGroup(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) || null;
  } catch {
    return null;
  }
}

/**
 * Process groups of processes whose command line names the directory: ansible-runner starts
 * ansible-playbook in a session of its own, which outlives a killed runner.
 */
async function groupsNaming(dir: string): Promise<number[]> {
  const groups = new Set<number>();
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.includes(`${dir}/`)) continue;
    const group = await processGroup(Number(entry));
    if (group) groups.add(group);
  }
  return [...groups];
}

const killGroup = (group: number) => {
  try {
    process.kill(-group, 'SIGKILL');
  } catch {
    // Already gone.
  }
};

/** Remembers a process group a run started, so that the next start of the node can stop it if the service died. */
export async function recordRunProcess(dir: string, pid: number): Promise<void> {
  const started = await processStartTime(pid);
  if (started) await appendFile(path.join(dir, PROCESSES_FILE), `${pid} ${started}\n`, { mode: 0o600 });
}

/**
 * At start, before any run: what runs of this node left behind when the service died is removed.
 * The process groups they started are killed (a recorded group only when its leader's start time
 * still matches, so a reused pid is never hit), with any process still naming the run's directory,
 * and their private directories, which may hold credentials, are deleted.
 */
export async function cleanLeftoverRuns(node: Node): Promise<number> {
  const root = await ensureRunDirectoriesRoot(node);
  const entries = await readdir(root);
  for (const entry of entries) {
    const dir = path.join(root, entry);
    const recorded = await readFile(path.join(dir, PROCESSES_FILE), 'utf8').catch(() => '');
    for (const line of recorded.split('\n').filter(Boolean)) {
      const [pid, started] = line.split(' ');
      if ((await processStartTime(Number(pid))) === started) killGroup(Number(pid));
    }
    for (const group of await groupsNaming(dir)) killGroup(group);
    await rm(dir, { recursive: true, force: true });
  }
  return entries.length;
}
