import { ConfigError, loadEnvConfig } from './config/env.ts';
import { restrictNewFiles } from './config/file-modes.ts';
import { runManageCommand } from './cli/manage.ts';
import { startService } from './server/start.ts';
import { superviseAssistant } from './server/assistant-child.ts';
import { runAssistant } from './assistant/process.ts';
import { unindexedRetrieval } from './assistant/unindexed.ts';

const USAGE = `usage: drover [serve]            run the service (and the assistant service, unless SVC_ASSISTANT_ENABLED=false)
       drover assistant          run only the assistant service
       drover manage <command>   run a management command (drover manage help)`;

/** Stops on SIGINT or SIGTERM, and when the process that started this one goes away. */
function stopOnSignals(close: () => Promise<void>): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.once('disconnect', stop);
}

async function main(argv: string[]): Promise<number> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return 0;
  }
  // Before the first file is written (the generated secret key, the embedded database).
  restrictNewFiles();
  const env = await loadEnvConfig(process.env, command === 'assistant' ? 'assistant' : 'service');
  if (command === 'manage') return runManageCommand(env, rest);
  if (command === 'assistant') {
    // Retrieval: the factory that makes the assistant's documentation index.
    const assistant = await runAssistant(env, unindexedRetrieval);
    stopOnSignals(() => assistant.close());
    return -1;
  }
  if (command !== 'serve') {
    console.error(`drover: unknown command "${command}"\n${USAGE}`);
    return 2;
  }
  const service = await startService(env);
  const assistant = env.assistant.enabled ? superviseAssistant(env, service) : null;
  stopOnSignals(async () => {
    await assistant?.stop();
    await service.close();
  });
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
