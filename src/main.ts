import { ConfigError, loadEnvConfig } from './config/env.ts';
import { restrictNewFiles } from './config/file-modes.ts';
import { runManageCommand } from './cli/manage.ts';
import { startService } from './server/start.ts';

const USAGE = `usage: drover [serve]            run the service
       drover manage <command>   run a management command (drover manage help)`;

async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return 0;
  }
  // Before the first file is written (the generated secret key, the embedded database).
  restrictNewFiles();
  const env = await loadEnvConfig();
  if (command === 'manage') return runManageCommand(env, rest);
  if (command !== 'serve') {
    console.error(`drover: unknown command "${command}"\n${USAGE}`);
    return 2;
  }
  const service = await startService(env);
  const stop = async () => {
    await service.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return -1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err) => {
    console.error(err instanceof ConfigError ? err.message : err);
    process.exit(1);
  },
);
