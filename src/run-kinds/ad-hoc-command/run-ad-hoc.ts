import { lookupsOf } from '../../resources/credentials/dynamic-inputs.ts';
import type { UnifiedJobRow } from '../../db/tables.ts';
import { baseEnvironment } from '../../runs/exec.ts';
import type { RunContext, RunOutcome } from '../../runs/run-kind.ts';
import { prepareRunnerDir, runOptions } from '../../ansible/private-data-dir.ts';
import { prefixed, runMetaVars } from '../../runs/meta-vars.ts';
import { runnerOutcome, streamRunnerEvents, writeCommandLine } from '../../ansible/runner-stream.ts';
import { INLINE_JINJA, moduleArgsHaveJinja } from '../../ansible/jinja-markers.ts';
import { assertOptionValues, optionArgument } from '../../ansible/option-values.ts';
import { recordInvocation } from '../../runs/invocation.ts';

/**
 * Runs an ad hoc command with ansible-runner (`run -m <module> -a <args> --hosts <limit>`), storing
 * its events as they arrive. Credentials reach the run through the private directory only; extra
 * vars are all !unsafe (see prepareRunnerDir). The host pattern and the module arguments are
 * checked again, as AWX does at run time, for commands stored before the checks on create.
 */
export async function runAdHocCommand(command: UnifiedJobRow, run: RunContext): Promise<RunOutcome> {
  if (!command.inventory_id) return { status: 'failed', explanation: 'The ad hoc command has no inventory.' };
  const taskEnv = (run.services.settings.get('SVC_TASK_ENV') ?? {}) as Record<string, string>;
  assertOptionValues(command, { limit: 'pattern' });
  if (command.module_args && moduleArgsHaveJinja(command.module_args)) throw new Error(INLINE_JINJA);
  const prepared = await prepareRunnerDir(run.db, command, run.privateDir, baseEnvironment(taskEnv), prefixed(await runMetaVars(run.db, command)), {}, lookupsOf(run.services, run.signal));
  const options = [...prepared.cmdline, ...runOptions(command)];
  await writeCommandLine(prepared, options);
  const args = ['run', prepared.dir, optionArgument('--hosts', command.limit || 'all'), '-m', command.module_name];
  if (command.module_args) args.push(optionArgument('--args', command.module_args));
  await recordInvocation(run.db, command.id, { args: ['ansible', ...options, ...args.slice(2)], cwd: prepared.dir, env: prepared.env, secrets: prepared.secrets });
  args.push('--json', '--ident', String(command.id));
  const { code, ingester } = await streamRunnerEvents(run, command.id, command.inventory_id, prepared, args);
  return runnerOutcome(run, code, ingester);
}
