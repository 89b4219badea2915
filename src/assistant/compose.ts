/**
 * The assistant's parts: the language model server, the main service's API document, retrieval
 * over the documentation; and, for its own process, its database.
 */
import path from 'node:path';
import type { EnvConfig } from '../config/env.ts';
import type { Database } from '../db/database.ts';
import { openDatabase } from '../db/open.ts';
import type { AssistantDeps } from './app.ts';
import type { AssistantConfig } from './config.ts';
import { LlmClient } from './llm-client.ts';
import { MainOpenApi, type OpenApiDocument } from './main-openapi.ts';
import { droverCorpus } from './retrieval/corpus.ts';
import { openRetrieval } from './retrieval/open-retrieval.ts';
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

/** The documentation the assistant answers from. */
export const DOCS_DIR = path.resolve(import.meta.dirname, '../../docs');

/** Retrieval over docs/ and the main service's API reference, indexed in the database. */
export const documentationIndex: RetrievalFactory = ({ db, embed, openApi }) =>
  openRetrieval({ db, embed, corpus: droverCorpus({ docsDir: DOCS_DIR, openapi: openApi }) });

/** The embedded database of the assistant, beside the main service's pgdata/ (one PGlite directory serves one process). */
export const ASSISTANT_PGDATA = 'assistant-pgdata';

export interface PartsOptions {
  logger?: AssistantDeps['logger'];
  trustedProxies?: string[];
  /** How to get the main service's document from the process that started this one, if any. */
  askParent?: () => Promise<unknown>;
}

/** The app's parts on a database that is open. */
export async function assistantParts(db: Database, config: AssistantConfig, makeRetrieval: RetrievalFactory, options: PartsOptions = {}): Promise<AssistantDeps> {
  const openApi = new MainOpenApi(config.mainUrl, options.askParent);
  const retrieval = await makeRetrieval({ db, embed: new LlmClient(config.llm).embed, openApi: () => openApi.get() });
  return {
    retrieval,
    llm: config.llm,
    mainUrl: config.mainUrl,
    openApi,
    logger: options.logger,
    trustedProxies: options.trustedProxies,
  };
}

/** The parts of `drover assistant`, with the database it opens (closed by the caller when done). */
export async function composeAssistant(env: EnvConfig, config: AssistantConfig, makeRetrieval: RetrievalFactory, options: PartsOptions = {}): Promise<{ deps: AssistantDeps; db: Database }> {
  const db = await openDatabase(env, { embeddedDir: ASSISTANT_PGDATA });
  try {
    return { db, deps: await assistantParts(db, config, makeRetrieval, { trustedProxies: env.trustedProxies, ...options }) };
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}
