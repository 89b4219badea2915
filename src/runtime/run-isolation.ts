import type { SandboxStatus } from './sandbox.ts';

export interface RunIsolation {
  /** AWX_ISOLATION_ENABLED: an administrator's choice, on by default. */
  enabled: boolean;
  /** bubblewrap works on this node. */
  available: boolean;
  /** Runs on this node start inside the sandbox. */
  isolates_runs: boolean;
  /** Why runs cannot start on this node (isolation asked for and impossible), or ''. */
  error: string;
}

/** What this node does about isolation: the setting and what the probe found. */
export function runIsolation(settings: { get<T = unknown>(key: string): T }, sandbox: SandboxStatus): RunIsolation {
  const enabled = settings.get('AWX_ISOLATION_ENABLED') !== false;
  return { enabled, available: sandbox.available, isolates_runs: enabled && sandbox.available, error: enabled ? sandbox.error : '' };
}

/** One line for the start log: what runs see, and the fix when they cannot start. */
export function describeIsolation(isolation: RunIsolation, sandbox: SandboxStatus): string {
  if (isolation.isolates_runs) return `Run isolation: bubblewrap${sandbox.version ? ` ${sandbox.version}` : ''} (${sandbox.bwrap}); runs see the Ansible runtime and their own files only`;
  if (!isolation.enabled) return `Run isolation is OFF (AWX_ISOLATION_ENABLED is false): runs can read this node's data directory, its key and database${sandbox.available ? '' : ` (${sandbox.error})`}`;
  return `${isolation.error} Runs cannot start on this node until this is fixed.`;
}
