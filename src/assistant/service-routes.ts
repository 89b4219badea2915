/** GET /api/v1/health and POST /api/v1/index. */
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../api/errors.ts';
import { VERSION } from '../version.ts';
import type { LlmClient } from './llm-client.ts';
import type { MainOpenApi } from './main-openapi.ts';
import type { Retrieval } from './retrieval/retrieval.ts';
import { Detail, Health, IndexOutcome, IndexQuery } from './schemas.ts';

/** How long health waits for the index store. */
const STORE_TIMEOUT_MS = 2000;

/** Whether the store answers in time; a failure or a hang is a no. */
async function storeAnswers(retrieval: Retrieval): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), STORE_TIMEOUT_MS)));
  try {
    return await Promise.race([retrieval.healthy().then((ok) => ok === true, () => false), late]);
  } finally {
    clearTimeout(timer);
  }
}

export function serviceRoutes(app: FastifyInstance, deps: { retrieval: Retrieval; llm: LlmClient; openApi: MainOpenApi }): void {
  app.get('/api/v1/health', {
    config: { assistantAccess: 'public' },
    schema: {
      summary: 'Health of the assistant and of what it depends on',
      description: 'status is ok when the language model server lists the configured model and the documentation index answers, degraded otherwise.',
      tags: ['service'],
      security: [],
      response: { 200: Health },
    },
    handler: async () => {
      const [llmBackend, vectorStore] = await Promise.all([deps.llm.hasModel(), storeAnswers(deps.retrieval)]);
      return {
        status: llmBackend && vectorStore ? 'ok' : 'degraded',
        version: VERSION,
        llm_backend: llmBackend,
        vector_store: vectorStore,
        model: deps.llm.config.model,
      };
    },
  });

  app.post('/api/v1/index', {
    config: { assistantAccess: 'superuser' },
    schema: {
      summary: 'Index the documentation',
      description: 'Indexes the documents that changed since the last index, or with rebuild=true drops the index and indexes everything. Needs a Drover superuser.',
      tags: ['service'],
      querystring: IndexQuery,
      response: { 200: IndexOutcome, 401: Detail, 403: Detail, 422: Detail, 503: Detail },
    },
    handler: async (request) => {
      const rebuild = (request.query as { rebuild?: boolean }).rebuild ?? false;
      // The API reference is read with the superuser's credentials (the main service serves it only to signed-in callers).
      await deps.openApi.refresh({ authorization: request.headers.authorization, cookie: request.headers.cookie, address: request.ip });
      try {
        const outcome = await deps.retrieval.index({ rebuild });
        request.log.info({ indexed_chunks: outcome.indexed_chunks, rebuild }, 'documentation indexed');
        return { indexed_chunks: outcome.indexed_chunks, rebuild };
      } catch (err) {
        request.log.error({ err }, 'indexing the documentation failed');
        throw new ApiError(503, { detail: 'The documentation could not be indexed; the assistant service log says why.' });
      }
    },
  });
}
