import type { EnvConfig } from '../config/env.ts';

// Filled in by the management-command module.
export async function runManageCommand(_env: EnvConfig, args: string[]): Promise<number> {
  console.error(`drover manage: unknown command "${args[0] ?? ''}"`);
  return 2;
}
