/**
 * One scan: the tool run inside the run sandbox (docs/security.md#runs-are-isolated) on a copy of
 * what is scanned, offline, within the scanner's time limit. It sees the copy, its configuration
 * and the project's installed roles and collections, nothing of the service.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Services } from '../api/context.ts';
import { baseEnvironment, execProcess } from '../runs/exec.ts';
import type { ExecOptions } from '../runs/run-kind.ts';
import { runInvocation } from '../runtime/sandbox-command.ts';
import type { Exec } from '../projects/revision-files.ts';
import { isDirectory } from '../projects/paths.ts';
import { setsOptions } from './config.ts';
import { READ_REPORT, UnreadableReport, type Finding } from './findings.ts';
import { toolPath, type Tool } from './tools.ts';

export type ScanOutcome = { status: 'ok'; findings: Finding[]; durationMs: number } | { status: 'timeout' | 'error'; message: string; durationMs: number };

export interface ScanTool {
  tool: Tool;
  config: string;
  /** Seconds. */
  timeout: number;
}

/** What is scanned: files put in `dir` by `fill`, the playbook among them, and what Ansible finds roles and collections in. */
export interface ScanFiles {
  fill(exec: Exec, dir: string): Promise<{ problem: string } | null>;
  playbook: string;
  env: Record<string, string>;
  readable: string[];
}

const CONFIG_FILE = 'scanner-config.yml';

/** Beside the playbook, what yamllint reads of a project: its roles, collections and variables files. */
const YAML_DIRS = ['roles', 'collections', 'group_vars', 'host_vars', 'vars'];

const existing = async (dir: string, names: string[]) =>
  (await Promise.all(names.map(async (name) => ((await isDirectory(path.join(dir, name))) ? name : null)))).filter((name): name is string => name !== null);

/** The tool's command line, run in the copy's directory. */
function commandLine(tool: Tool, playbook: string, configFile: string | null, yamlDirs: string[]): string[] {
  const config = (flag: string) => (configFile ? [flag, configFile] : []);
  if (tool === 'ansible-lint') return ['--offline', '--nocolor', '-f', 'codeclimate', '-q', ...config('-c'), playbook];
  if (tool === 'yamllint') return ['-f', 'parsable', ...config('-c'), playbook, ...yamlDirs];
  return ['-d', '.', '--framework', 'ansible', '-o', 'json', '--quiet', '--compact', '--skip-download', ...config('--config-file')];
}

/** Exit codes that mean "scanned" (with or without findings); anything else is the tool failing. */
const SCANNED: Record<Tool, number[]> = { 'ansible-lint': [0, 2], yamllint: [0, 1, 2], checkov: [0, 1] };

/** A workspace under the data directory (hidden from runs), removed after the scan. */
async function workspace(services: Pick<Services, 'env'>): Promise<string> {
  const root = path.join(services.env.dataDir, 'scans');
  await mkdir(root, { recursive: true, mode: 0o700 });
  return mkdtemp(path.join(root, 'scan-'));
}

/**
 * Runs `work` with an exec starting processes in the sandbox, seeing a fresh workspace (given to
 * `work`, removed afterwards), stopped after `timeoutMs`.
 */
export async function inSandbox<T>(
  services: Pick<Services, 'settings' | 'env'>, timeoutMs: number, work: (exec: Exec, dir: string, timedOut: () => boolean) => Promise<T>,
): Promise<T> {
  const dir = await workspace(services);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    const home = path.join(dir, 'home');
    await mkdir(home);
    const exec: Exec = async (command, args, options: ExecOptions = {}) => {
      const env = baseEnvironment({ ...options.env, HOME: home, ANSIBLE_LOCAL_TEMP: path.join(home, '.ansible', 'tmp'), NO_COLOR: '1' });
      const started = await runInvocation(services, dir, command, args, options, env);
      return execProcess(started.command, started.args, { ...options, cwd: started.cwd, env }, controller.signal, async () => undefined);
    };
    return await work(exec, dir, () => timedOut);
  } finally {
    clearTimeout(timer);
    await rm(dir, { recursive: true, force: true });
  }
}

export async function runTool(services: Pick<Services, 'settings' | 'env'>, scanner: ScanTool, files: ScanFiles): Promise<ScanOutcome> {
  const started = Date.now();
  const took = () => Date.now() - started;
  const program = toolPath(scanner.tool);
  if (!program) return { status: 'error', message: `${scanner.tool} is not installed on this node`, durationMs: took() };
  const timeout = (): ScanOutcome => ({ status: 'timeout', message: `${scanner.tool} did not finish within ${scanner.timeout} s`, durationMs: took() });
  let stopped = () => false;
  try {
    return await inSandbox(services, scanner.timeout * 1000, async (exec, dir, timedOut) => {
      stopped = timedOut;
      const scanned = path.join(dir, 'project');
      const filled = await files.fill(exec, scanned);
      if (timedOut()) return timeout();
      if (filled) return { status: 'error', message: filled.problem, durationMs: took() };
      let configFile: string | null = null;
      if (setsOptions(scanner.config)) {
        configFile = path.join(dir, CONFIG_FILE);
        await writeFile(configFile, scanner.config, { mode: 0o600 });
      }
      const yamlDirs = scanner.tool === 'yamllint' ? await existing(scanned, YAML_DIRS) : [];
      const result = await exec(program, commandLine(scanner.tool, files.playbook, configFile, yamlDirs), {
        cwd: scanned, captureStdout: true, env: files.env, sandbox: { readable: [...files.readable, path.dirname(program)] },
      });
      if (timedOut()) return timeout();
      if (result.code === null || !SCANNED[scanner.tool].includes(result.code)) {
        const why = result.stderr.trim().split('\n').filter(Boolean).slice(-3).join(' ').slice(0, 500);
        return { status: 'error', message: `${scanner.tool} failed (exit code ${result.code ?? 'none'})${why ? `: ${why}` : ''}`, durationMs: took() };
      }
      try {
        return { status: 'ok', findings: READ_REPORT[scanner.tool](result.stdout, scanned), durationMs: took() };
      } catch (err) {
        if (err instanceof UnreadableReport) return { status: 'error', message: `${scanner.tool} gave an ${err.message}`, durationMs: took() };
        throw err;
      }
    });
  } catch (err) {
    if (stopped()) return timeout();
    return { status: 'error', message: `${scanner.tool} could not run: ${(err as Error).message}`, durationMs: took() };
  }
}
