/**
 * The assistant service for tests: its HTTP app listening on 127.0.0.1, checking credentials
 * against a main service (a TestApp listening on 127.0.0.1) and asking a language model server
 * (test/helpers/llm-server.ts). Retrieval is made in one place below; the controls around it
 * (failing on demand, an index held open, what each search answered) work whatever it is.
 */
import { EventEmitter, once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import type { Retrieval, RetrievedChunk } from '../../src/assistant/retrieval/retrieval.ts';
import { listenAssistant } from '../../src/assistant/serve.ts';
import type { Database } from '../../src/db/database.ts';
import { fakeRetrieval } from './fake-retrieval.ts';

/** Retrieval as the tests see it: the one made below, with controls. */
export interface ControlledRetrieval extends Retrieval {
  /** What each search answered, oldest first. */
  searches: Array<{ query: string; limit: number; answer: RetrievedChunk[] }>;
  indexCalls: Array<{ rebuild: boolean }>;
  /** Searches and indexing throw while set. */
  failing: boolean;
  /** What healthy() answers (null: what the retrieval says). */
  healthAnswer: boolean | null;
  /** Whether isEmpty() answers true (null: what the retrieval says). */
  emptyAnswer: boolean | null;
  /** Indexing waits until released while set. */
  holdIndex: boolean;
  releaseIndex(): void;
}

export interface AssistantOptions {
  /** The main service's address (http://127.0.0.1:<port>). */
  mainUrl: string;
  /** The language model server's base (http://127.0.0.1:<port>/v1, or without /v1). */
  llmUrl: string;
  /** The main service's database (retrieval's store). */
  db: Database;
  model?: string;
  apiKey?: string;
  /** 0 keeps no caller between requests. */
  callerTtlMs?: number;
  /** Set before the service starts (the first-start index). */
  emptyIndex?: boolean;
  holdIndex?: boolean;
}

export interface TestAssistant {
  app: FastifyInstance;
  /** http://127.0.0.1:<port> */
  url: string;
  retrieval: ControlledRetrieval;
  /** Settles when the first-start index has ended or was not needed. */
  firstIndex: Promise<void>;
  /** What the service logged of its first start. */
  log: string[];
  /** The path of every request the service received, oldest first. */
  paths: string[];
  close(): Promise<void>;
}

function controlled(inner: Retrieval): ControlledRetrieval {
  const events = new EventEmitter();
  const broken = () => new Error('the index store is gone');
  const retrieval: ControlledRetrieval = {
    searches: [],
    indexCalls: [],
    failing: false,
    healthAnswer: null,
    emptyAnswer: null,
    holdIndex: false,
    releaseIndex: () => events.emit('release'),
    async search(query, limit) {
      if (retrieval.failing) throw broken();
      const answer = await inner.search(query, limit);
      retrieval.searches.push({ query, limit, answer });
      return answer;
    },
    async index(options) {
      retrieval.indexCalls.push(options);
      if (retrieval.holdIndex) await once(events, 'release');
      if (retrieval.failing) throw broken();
      return inner.index(options);
    },
    healthy: async () => retrieval.healthAnswer ?? inner.healthy(),
    isEmpty: async () => retrieval.emptyAnswer ?? inner.isEmpty(),
  };
  return retrieval;
}

export async function startAssistant(options: AssistantOptions): Promise<TestAssistant> {
  const retrieval = controlled(fakeRetrieval());
  retrieval.emptyAnswer = options.emptyIndex ?? false;
  retrieval.holdIndex = options.holdIndex ?? false;
  const log: string[] = [];
  const model = options.model ?? 'llama3.1';
  const running = await listenAssistant(
    {
      retrieval,
      llm: { baseUrl: options.llmUrl.replace(/\/v1\/?$/, '') + '/v1', model, embeddingModel: model, apiKey: options.apiKey ?? null },
      mainUrl: options.mainUrl,
      callerTtlMs: options.callerTtlMs,
    },
    { host: '127.0.0.1', port: 0, log: (line) => log.push(line) },
  );
  const paths: string[] = [];
  running.app.server.on('request', (req: { url?: string }) => paths.push(req.url ?? ''));
  return { app: running.app, url: running.url, retrieval, firstIndex: running.firstIndex, log, paths, close: running.close };
}
