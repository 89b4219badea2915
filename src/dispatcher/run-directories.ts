import { appendFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const PROCESSES_FILE = '.processes';

/** Where a node keeps the private directories of its runs (one directory per run). */
export function runDirectoriesRoot(nodeName: string): string {
  return path.join(tmpdir(), `drover-runs-${nodeName.replace(/[^\w.-]/g, '_')}`);
}

export async function makeRunDirectory(nodeName: string, jobId: number): Promise<string> {
  const root = runDirectoriesRoot(nodeName);
  await mkdir(root, { recursive: true, mode: 0o700 });
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
export async function cleanLeftoverRuns(nodeName: string): Promise<number> {
  const root = runDirectoriesRoot(nodeName);
  const entries = await readdir(root).catch(() => [] as string[]);
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
