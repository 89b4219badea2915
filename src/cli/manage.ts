import { ApiError, ValidationError } from '../api/errors.ts';
import { ConfigError, type EnvConfig } from '../config/env.ts';
import { ResourceSet } from '../api/resource-set.ts';
import { RESOURCES } from '../composition/resources.ts';
import { CommandError, processIo, UsageError, type Command, type Io } from './command.ts';
import { cleanupJobs } from './commands/cleanup-jobs.ts';
import { cleanupSessions } from './commands/cleanup-sessions.ts';
import { cleanupHostMetricsCommand, hostMetricSummaryMonthlyCommand } from './commands/host-metrics.ts';
import { cleanupFactSnapshots } from './commands/cleanup-fact-snapshots.ts';
import { cleanupEventLogs } from './commands/cleanup-event-logs.ts';
import { cleanupTokens } from './commands/cleanup-tokens.ts';
import { createOAuth2Token } from './commands/create-oauth2-token.ts';
import { createsuperuser } from './commands/createsuperuser.ts';
import { help } from './commands/help.ts';
import { listInstances } from './commands/list-instances.ts';
import { provisionInstance } from './commands/provision-instance.ts';
import { deprovisionInstance } from './commands/deprovision-instance.ts';
import { checkInstanceReady } from './commands/check-instance-ready.ts';
import { printSetting } from './commands/print-setting.ts';
import { regenerateSecretKey } from './commands/regenerate-secret-key.ts';
import { updatePassword } from './commands/update-password.ts';

/** Every management command, in the order help lists them. */
export const COMMANDS: readonly Command[] = [help, createsuperuser, updatePassword, printSetting, listInstances, provisionInstance, deprovisionInstance, checkInstanceReady, cleanupSessions, createOAuth2Token, cleanupTokens, cleanupJobs, cleanupFactSnapshots, cleanupEventLogs, cleanupHostMetricsCommand, hostMetricSummaryMonthlyCommand, regenerateSecretKey];

/** A validation problem on one line: "username: Enter a valid username.; email: ...". */
function describeValidation(err: ValidationError): string {
  return Object.entries(err.errors)
    .map(([field, messages]) => (field === '__all__' ? messages.join(' ') : `${field}: ${messages.join(' ')}`))
    .join('; ');
}

/**
 * Runs `drover manage <command> [args]` and answers the exit code: 0 done, 1 the command
 * failed (message on stderr), 2 wrong usage.
 */
export async function runManageCommand(env: EnvConfig, args: string[], io: Io = processIo): Promise<number> {
  // Commands look resources up by name before they open the database.
  const resources = new ResourceSet(RESOURCES);
  const [name, ...rest] = args;
  if (!name || name === '--help' || name === '-h') {
    const status = await help.run({ env, args: [], io: name ? io : { out: io.err, err: io.err }, commands: COMMANDS, resources });
    return name ? status : 2;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    io.err(`drover manage: unknown command "${name}" (drover manage help lists them)`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) return help.run({ env, args: [name], io, commands: COMMANDS, resources });
  try {
    return await command.run({ env, args: rest, io, commands: COMMANDS, resources });
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`drover manage ${name}: ${err.message}`);
      io.err(`usage: drover manage ${name} ${command.usage}`.trimEnd());
      return 2;
    }
    if (err instanceof ValidationError) io.err(`Error: ${describeValidation(err)}`);
    else if (err instanceof ApiError) io.err(`Error: ${err.message}`);
    else if (err instanceof CommandError) io.err(`Error: ${err.message}`);
    else if (err instanceof ConfigError) io.err(err.message);
    else throw err;
    return 1;
  }
}
