import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Row } from '../db/database.ts';
import { baseEnvironment } from '../dispatcher/exec.ts';
import type { RunContext, RunOutcome } from '../dispatcher/runners.ts';
import { EventIngester, insertEventRows } from '../jobs/event-ingest.ts';
import { prepareRunnerDir } from '../jobs/private-data-dir.ts';
import { ANSIBLE_RUNNER } from '../jobs/run-job.ts';
import { parseVariables } from '../inventory/variables.ts';
import { hostStatusCounts } from './host-status.ts';
import { unsafeVariablesYaml } from './unsafe-vars.ts';

/** Options of the ansible command line from the command's own fields. */
function commandOptions(command: Row): string[] {
  const args: string[] = [];
  if (command.job_type === 'check') args.push('--check');
  if (command.diff_mode) args.push('--diff');
  if (command.become_enabled) args.push('--become');
  if (command.forks > 0) args.push('--forks', String(command.forks));
  if (command.verbosity > 0) args.push(`-${'v'.repeat(Math.min(command.verbosity, 5))}`);
  return args;
}

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/**
 * Runs an ad hoc command with ansible-runner (`run -m <module> -a <args> --hosts <limit>`), storing
 * its events as they arrive. Credentials reach the run through the private directory only.
 */
export async function runAdHocCommand(command: Row, run: RunContext): Promise<RunOutcome> {
  if (!command.inventory_id) return { status: 'failed', explanation: 'The ad hoc command has no inventory.' };
  const taskEnv = (run.services.settings.get('SVC_TASK_ENV') ?? {}) as Record<string, string>;
  const prepared = await prepareRunnerDir(run.db, command, run.privateDir, baseEnvironment(taskEnv));
  await writeFile(path.join(prepared.dir, 'env', 'extravars'), unsafeVariablesYaml(parseVariables(command.extra_vars)), { mode: 0o600 });
  const cmdline = [...prepared.cmdline, ...commandOptions(command)];
  await writeFile(path.join(prepared.dir, 'env', 'cmdline'), cmdline.map(quote).join(' '), { mode: 0o600 });

  const hostIds = new Map<string, number>(
    (await run.db.query<{ name: string; id: number }>('SELECT name, id FROM hosts WHERE inventory_id = $1', [command.inventory_id])).map((h) => [h.name, h.id]),
  );
  const offset = await run.position();
  const ingester = new EventIngester(run.db, command.id, hostIds, prepared.secrets, offset);
  const errors: string[] = [];
  const args = ['run', prepared.dir, '--hosts', command.limit || 'all', '-m', command.module_name];
  if (command.module_args) args.push('-a', command.module_args);
  args.push('--json', '--ident', String(command.id));
  const result = await run.exec(ANSIBLE_RUNNER, args, {
    cwd: prepared.dir,
    env: prepared.env,
    secrets: prepared.secrets,
    onLine: (line, stream) => (stream === 'stdout' && line.startsWith('{') ? ingester.addLine(line) : errors.push(line)),
  });
  await ingester.flush();
  await storeOtherLines(run, command.id, ingester, offset, errors);
  const updates = ingester.stats ? { host_status_counts: JSON.stringify(hostStatusCounts(ingester.stats)) } : undefined;
  if (run.signal.aborted) return { status: 'failed', updates };
  if (result.code === 0) return { status: 'successful', updates };
  const failedHosts = ingester.stats ? Object.keys({ ...ingester.stats.failures, ...ingester.stats.dark }).length : 0;
  return { status: 'failed', explanation: failedHosts ? '' : `ansible-runner exited with code ${result.code}.`, updates };
}

/** Lines that were not events (ansible-runner's own complaints) follow the command's output. */
async function storeOtherLines(run: RunContext, id: number, ingester: EventIngester, offset: { counter: number; line: number }, lines: string[]) {
  if (!lines.length) return run.advance(ingester.lastCounter, ingester.lastLine);
  const base = { counter: ingester.lastCounter || offset.counter, line: ingester.lastLine || offset.line };
  await insertEventRows(run.db, id, lines.map((text, i) => ({
    counter: base.counter + i + 1, uuid: '', parent_uuid: '', event: 'verbose', event_data: {}, stdout: text, start_line: base.line + i,
    end_line: base.line + i + 1, verbosity: 0, host_id: null, host_name: '', playbook: '', play: '', task: '', role: '', changed: false,
    failed: false, created: new Date().toISOString(),
  })));
  run.advance(base.counter + lines.length, base.line + lines.length);
}
