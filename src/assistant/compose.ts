/**
 * The assistant's parts in its own process: its database, the language model server, retrieval.
 * Retrieval comes from the factory the caller names (src/main.ts), the one place to change when
 * another index is plugged in.
 */
import type { EnvConfig } from '../config/env.ts';
import type { Database } from '../db/database.ts';
import { openDatabase } from '../db/open.ts';
import type { AssistantDeps } from './app.ts';
import type { AssistantConfig } from './config.ts';
import { LlmClient } from './llm-client.ts';
import { MainOpenApi, type OpenApiDocument } from './main-openapi.ts';
import type { Embedder, Retrieval } from './retrieval/retrieval.ts';

/** What retrieval is made from. */
export interface RetrievalDeps {
  /** PostgreSQL (the main service's database) or the assistant's own PGlite directory. */
  db: Database;
  /** Embeddings through the language model server; null when it offers none. */
  embed: Embedder;
  /** The main service's OpenAPI document (for the API reference), or null while none could be read. */
  openApi: () => Promise<OpenApiDocument | null>;
}

export type RetrievalFactory = (deps: RetrievalDeps) => Retrieval | Promise<Retrieval>;

/** The embedded database of the assistant, beside the main service's pgdata/ (one PGlite directory serves one process). */
export const ASSISTANT_PGDATA = 'assistant-pgdata';

export interface ComposedAssistant {
  deps: AssistantDeps;
  db: Database;
}

/** `askParent`: how to get the main service's document from the process that started this one, if any. */
export async function composeAssistant(
  env: EnvConfig,
  config: AssistantConfig,
  openRetrieval: RetrievalFactory,
  options: { logger?: AssistantDeps['logger']; askParent?: () => Promise<unknown> } = {},
): Promise<ComposedAssistant> {
  const db = await openDatabase(env, { embeddedDir: ASSISTANT_PGDATA });
  try {
    const openApi = new MainOpenApi(config.mainUrl, options.askParent);
    const retrieval = await openRetrieval({ db, embed: new LlmClient(config.llm).embed, openApi: () => openApi.get() });
    return {
      db,
      deps: { retrieval, llm: config.llm, mainUrl: config.mainUrl, openApi, logger: options.logger, trustedProxies: env.trustedProxies },
    };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}
