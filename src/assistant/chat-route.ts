/**
 * POST /api/v1/chat: the answer to one question, streamed as server-sent events. Each piece of
 * text the model produces is sent on as it arrives ({"token"}); the stream ends with
 * {"done": true, "sources"} or, when anything fails, one {"error", "done": true}. A caller who goes
 * away cancels the request to the model.
 */
import type { FastifyInstance } from 'fastify';
import { LlmError, type LlmClient } from './llm-client.ts';
import { buildMessages, PASSAGES, sourcesOf } from './prompt.ts';
import type { Retrieval, RetrievedChunk } from './retrieval/retrieval.ts';
import { ChatBody, ChatEvent, Detail, type ChatRequest } from './schemas.ts';
import { SSE_HEADERS, sseFrame } from './sse.ts';

class RetrievalFailed extends Error {}

async function passagesFor(retrieval: Retrieval, question: string): Promise<RetrievedChunk[]> {
  try {
    return await retrieval.search(question, PASSAGES);
  } catch (err) {
    throw new RetrievalFailed('The documentation index could not be searched.', { cause: err });
  }
}

export function chatRoute(app: FastifyInstance, deps: { retrieval: Retrieval; llm: LlmClient }): void {
  app.post('/api/v1/chat', {
    config: { assistantAccess: 'user' },
    schema: {
      summary: 'Ask a question about Drover',
      description:
        'Answers from the documentation passages that match the question, streamed as server-sent events: `data: {"token": "..."}` for each piece of the answer, ' +
        'then `data: {"done": true, "sources": [...]}`; a failure ends the stream with `data: {"error": "...", "done": true}`. ' +
        'Needs a Drover session (writes also need X-CSRFToken) or an Authorization header the Drover service accepts.',
      tags: ['chat'],
      body: ChatBody,
      response: {
        200: { description: 'The answer as an event stream.', content: { 'text/event-stream': { schema: ChatEvent } } },
        401: Detail,
        422: Detail,
      },
    },
    handler: async (request, reply) => {
      const { message, context, history = [] } = request.body as ChatRequest;
      const upstream = new AbortController();
      const res = reply.raw;
      res.on('close', () => {
        if (!res.writableFinished) upstream.abort();
      });
      reply.hijack();
      res.writeHead(200, SSE_HEADERS);
      res.flushHeaders();
      const send = (event: object) => {
        if (!upstream.signal.aborted) res.write(sseFrame(event));
      };
      try {
        const passages = await passagesFor(deps.retrieval, message);
        const messages = buildMessages(message, passages, history, context?.page);
        for await (const token of deps.llm.streamChat(messages, upstream.signal)) send({ token });
        send({ done: true, sources: sourcesOf(passages) });
      } catch (err) {
        const known = err instanceof LlmError || err instanceof RetrievalFailed;
        request.log.warn({ err: known ? (err.cause ?? err) : err }, 'chat answer failed');
        send({ error: known ? err.message : 'The answer failed.', done: true });
      } finally {
        res.end();
      }
    },
  });
}
