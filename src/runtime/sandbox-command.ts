import type { Services } from '../api/context.ts';
import type { ExecOptions } from '../runs/run-kind.ts';
import { BWRAP, nodeSandbox, sandboxArgs, shownPaths } from './sandbox.ts';
import { runIsolation } from './run-isolation.ts';

export interface Invocation {
  command: string;
  args: string[];
  cwd: string;
}

/**
 * How a run starts one process: inside the node's sandbox, seeing its private directory and what
 * its kind names (ExecOptions.sandbox), unless an administrator turned isolation off
 * (AWX_ISOLATION_ENABLED). A node that should isolate and cannot refuses to start the process.
 */
export async function runInvocation(
  services: Pick<Services, 'settings' | 'env'>, privateDir: string, command: string, args: string[], options: ExecOptions, env: Record<string, string>,
): Promise<Invocation> {
  const cwd = options.cwd ?? privateDir;
  const isolation = runIsolation(services.settings, await nodeSandbox());
  if (!isolation.enabled) return { command, args, cwd };
  if (!isolation.isolates_runs) throw new Error(isolation.error);
  const layout = {
    writable: [privateDir, ...(options.sandbox?.writable ?? [])],
    readable: options.sandbox?.readable ?? [],
    shown: shownPaths(services.settings.get<string[]>('AWX_ISOLATION_SHOW_PATHS') ?? []),
    hidden: services.settings.get<string[]>('AWX_ISOLATION_HIDE_PATHS') ?? [],
    private: [...new Set([services.env.dataDir, services.env.projectsRoot])],
    cwd,
    home: env.HOME,
  };
  return { command: BWRAP, args: sandboxArgs(layout, command, args), cwd };
}
