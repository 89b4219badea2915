import type { ResourceSet, Services } from '../api/context.ts';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { EnvConfig } from '../config/env.ts';
import { readSettingsFile } from '../config/settings/file.ts';
import { settingRegistry } from '../composition/settings.ts';
import { openServices } from '../server/start.ts';

/** Where a command writes: standard output and standard error, one line at a time. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export const processIo: Io = {
  out: (line) => void process.stdout.write(line + '\n'),
  err: (line) => void process.stderr.write(line + '\n'),
};

export interface CommandContext {
  env: EnvConfig;
  args: string[];
  io: Io;
  /** Every command, for help. */
  commands: readonly Command[];
  /** The resources of the composition root, which commands look up by name before they open the database. */
  resources: ResourceSet;
}

export interface Command {
  name: string;
  /** One line shown by `drover manage help`. */
  summary: string;
  /** Arguments after the command name, e.g. "--username USERNAME --password PASSWORD". */
  usage: string;
  /** Answers the exit code; throws UsageError, CommandError or API errors for failures. */
  run(ctx: CommandContext): Promise<number>;
}

/** Wrong arguments: reported with the command's usage, exit code 2. */
export class UsageError extends Error {}

/** The command could not do its work: reported on one line, exit code 1. */
export class CommandError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses `--name value`, `--name=value` and flags; unknown options are usage errors. */
export function parseOptions<O extends Options>(args: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]);
  }
}

export function requireOption(value: string | boolean | undefined, name: string): string {
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

/** Opens the database (migrating it) and settings for the duration of `fn`. */
export async function withServices<T>(env: EnvConfig, fn: (services: Services) => Promise<T>): Promise<T> {
  // A bad settings file is reported before the database is opened.
  if (env.settingsFile) await readSettingsFile(env.settingsFile, settingRegistry());
  const services = await openServices(env);
  try {
    return await fn(services);
  } finally {
    await services.db.close();
  }
}
