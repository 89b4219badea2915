/**
 * `drover assistant`: the assistant service as a process of its own, alone or started by
 * `drover serve` (which it then tells where it listens, and which it stops with).
 */
import type { EnvConfig } from '../config/env.ts';
import { ensurePrivateDirectory } from '../config/file-modes.ts';
import { VERSION } from '../version.ts';
import { composeAssistant, type RetrievalFactory } from './compose.ts';
import { readAssistantConfig } from './config.ts';
import { askParentForOpenApi, tellParent } from './ipc.ts';
import { listenAssistant, type ListeningAssistant } from './serve.ts';

/** The address without user and password, for the log. */
function shown(url: string): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.href.replace(/\/$/, '');
}

export async function runAssistant(env: EnvConfig, openRetrieval: RetrievalFactory, log: (line: string) => void = console.log): Promise<ListeningAssistant> {
  const config = readAssistantConfig(process.env, env);
  await ensurePrivateDirectory(env.dataDir, 'SVC_DATA_DIR', { followLink: true });
  const forked = Boolean(process.send);
  const { deps, db } = await composeAssistant(env, config, openRetrieval, {
    logger: { level: process.env.SVC_LOG_LEVEL ?? 'info' },
    askParent: forked ? askParentForOpenApi : undefined,
  });
  let running: ListeningAssistant;
  try {
    running = await listenAssistant(deps, { host: env.assistant.host, port: env.assistant.port, log });
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  tellParent({ type: 'listening', url: running.url });
  log(`drover assistant ${VERSION} (model ${config.llm.model} at ${shown(config.llm.baseUrl)}, ${env.mode} database) answering on ${running.url}`);
  return {
    ...running,
    async close() {
      await running.close();
      await db.close();
    },
  };
}
