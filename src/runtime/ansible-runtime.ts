import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where the node's Ansible runtime lives: the distribution's packages, never a virtualenv's copy. */
export const ANSIBLE_PLAYBOOK = '/usr/bin/ansible-playbook';
export const ANSIBLE_RUNNER = '/usr/bin/ansible-runner';
export const INSTALL_COMMAND = 'apt-get install ansible-core python3-ansible-runner';

export interface RuntimePaths {
  ansiblePlaybook: string;
  ansibleRunner: string;
}

export interface AnsibleRuntime {
  available: boolean;
  ansible_playbook: string;
  ansible_playbook_version: string | null;
  ansible_runner: string;
  ansible_runner_version: string | null;
  /** Empty when available; otherwise what is missing and how to install it. */
  error: string;
}

/** The version a `--version` answer names: "ansible-playbook [core 2.14.18]" or "2.3.1". */
export function parseVersion(output: string): string | null {
  const first = output.split('\n')[0] ?? '';
  return /\[core ([^\]\s]+)\]/.exec(first)?.[1] ?? /(\d+\.\d+(?:\.\d+)?\S*)/.exec(first)?.[1] ?? null;
}

async function versionOf(path: string): Promise<string | null> {
  try {
    const { stdout } = await run(path, ['--version'], { timeout: 30_000, env: { ...process.env, ANSIBLE_NOCOLOR: '1' } });
    return parseVersion(stdout);
  } catch {
    return null;
  }
}

/** Runs both programs with --version; a program that is absent or fails counts as missing. */
export async function detectAnsibleRuntime(paths: RuntimePaths = { ansiblePlaybook: ANSIBLE_PLAYBOOK, ansibleRunner: ANSIBLE_RUNNER }): Promise<AnsibleRuntime> {
  const [playbook, runner] = await Promise.all([versionOf(paths.ansiblePlaybook), versionOf(paths.ansibleRunner)]);
  const missing = [...(playbook ? [] : [paths.ansiblePlaybook]), ...(runner ? [] : [paths.ansibleRunner])];
  return {
    available: missing.length === 0,
    ansible_playbook: paths.ansiblePlaybook,
    ansible_playbook_version: playbook,
    ansible_runner: paths.ansibleRunner,
    ansible_runner_version: runner,
    error: missing.length
      ? `Ansible runtime missing: ${missing.join(' and ')} not found or not working; jobs cannot run on this node. Install it with: ${INSTALL_COMMAND}`
      : '',
  };
}

let cached: Promise<AnsibleRuntime> | null = null;

/** This process's runtime, detected once (the programs take a second to start). */
export function nodeAnsibleRuntime(): Promise<AnsibleRuntime> {
  cached ??= detectAnsibleRuntime();
  return cached;
}

/** One line for the start log. */
export function describeRuntime(runtime: AnsibleRuntime): string {
  if (!runtime.available) return runtime.error;
  return `Ansible runtime: ansible-core ${runtime.ansible_playbook_version} (${runtime.ansible_playbook}), ansible-runner ${runtime.ansible_runner_version} (${runtime.ansible_runner})`;
}
