/** The assistant app listening, and its first index when the index is empty. */
import type { FastifyInstance } from 'fastify';
import { buildAssistant, type AssistantDeps } from './app.ts';
import { reachableHost } from './config.ts';

export interface ListeningAssistant {
  app: FastifyInstance;
  /** Where it answers from this machine: http://<host>:<port> */
  url: string;
  /** Settles when the first-start index has ended (or was not needed); never rejects. */
  firstIndex: Promise<void>;
  close(): Promise<void>;
}

/**
 * Listens on host:port (0: any free port), then, when the index holds nothing yet, indexes in the
 * background: the service answers meanwhile (health, and chat with what there is).
 */
export async function listenAssistant(deps: AssistantDeps, options: { host: string; port: number; log: (line: string) => void }): Promise<ListeningAssistant> {
  const app = await buildAssistant(deps);
  await app.listen({ host: options.host, port: options.port });
  const { port } = app.server.address() as { port: number };
  const firstIndex = indexWhenEmpty(deps, options.log);
  return {
    app,
    url: `http://${reachableHost(options.host)}:${port}`,
    firstIndex,
    close: () => app.close(),
  };
}

async function indexWhenEmpty(deps: AssistantDeps, log: (line: string) => void): Promise<void> {
  try {
    if (!(await deps.retrieval.isEmpty())) return;
    log('Indexing the documentation for the assistant (the index is empty)...');
    const started = Date.now();
    const { indexed_chunks } = await deps.retrieval.index({ rebuild: false });
    log(`Indexed the documentation for the assistant: ${indexed_chunks} passages in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (err) {
    log(`Indexing the documentation for the assistant failed: ${(err as Error).message} (POST /api/v1/index tries again)`);
  }
}
