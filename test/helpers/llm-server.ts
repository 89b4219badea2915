/**
 * An OpenAI-compatible language model server on 127.0.0.1 for tests, speaking the wire protocol
 * of Ollama, vLLM and the llama.cpp server: GET /v1/models, POST /v1/chat/completions streamed as
 * server-sent events (`data: {chunk}` ... `data: [DONE]`), POST /v1/embeddings. It answers as
 * programmed: tokens, an error status, a stream cut midway, or a stream held open after its first
 * tokens (until released, or until the client goes away, which it reports). Every request is recorded.
 */
import { createHash } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ChatAnswer =
  /** The tokens, then [DONE]. */
  | { tokens: string[] }
  /** An error status with an OpenAI-style error body. */
  | { status: number }
  /** The tokens, then the connection is closed midway (no end of the body, no [DONE]). */
  | { tokens: string[]; cut: true }
  /** The `before` tokens, then nothing until release(): then the `after` tokens and [DONE]. */
  | { before: string[]; after: string[] };

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface LlmServer {
  /** http://127.0.0.1:<port>/v1 */
  url: string;
  /** What GET /v1/models lists. */
  models: string[];
  /** Whether POST /v1/embeddings answers (404 otherwise, as a chat-only server). */
  embeddings: boolean;
  requests: RecordedRequest[];
  /** The chat completion requests, oldest first. */
  readonly chats: RecordedRequest[];
  /** How chat completions are answered from now on (default: the tokens "Hello", " world"). */
  answer(answer: ChatAnswer): void;
  /** Ends the held streams of `before`/`after` answers. */
  release(): void;
  /** Resolves when the client of a chat completion closes it before the answer ended. */
  nextClientClose(): Promise<void>;
  close(): Promise<void>;
}

/** A deterministic embedding: a bag of lower-cased words hashed into `dims` buckets, normalized. */
export function hashedEmbedding(text: string, dims = 64): number[] {
  const vector = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    vector[createHash('sha256').update(word).digest().readUInt32BE(0) % dims] += 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((x) => x / norm);
}

const chunk = (delta: Record<string, string>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1, model: 'test', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

export async function startLlmServer(options: { models?: string[] } = {}): Promise<LlmServer> {
  const events = new EventEmitter();
  const requests: RecordedRequest[] = [];
  let current: ChatAnswer = { tokens: ['Hello', ' world'] };
  const cutByServer = new WeakSet<http.ServerResponse>();
  const state = { models: options.models ?? ['llama3.1:latest', 'nomic-embed-text:latest'], embeddings: true };

  const stream = async (res: http.ServerResponse, answer: ChatAnswer) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // As OpenAI's servers do: a first chunk naming the role, a comment, then the content.
    res.write(chunk({ role: 'assistant' }));
    res.write(': keep-alive\n\n');
    const send = (token: string) => res.write(chunk({ content: token }));
    if ('status' in answer) return;
    if ('before' in answer) {
      answer.before.forEach(send);
      const closed = once(res, 'close');
      await Promise.race([once(events, 'release'), closed]);
      if (res.destroyed) return;
      answer.after.forEach(send);
    } else {
      answer.tokens.forEach(send);
      if ('cut' in answer) {
        cutByServer.add(res);
        // What was written goes out, then the connection ends without the end of the chunked body.
        res.socket?.end();
        return;
      }
    }
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  };

  const server = http.createServer(async (req, res) => {
    const body: Buffer[] = [];
    for await (const part of req) body.push(part as Buffer);
    const text = Buffer.concat(body).toString('utf8');
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // kept as text
    }
    const path = (req.url ?? '').split('?')[0];
    requests.push({ method: req.method ?? '', path, headers: req.headers, body: parsed });
    const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (req.method === 'GET' && path === '/v1/models') {
      return json(200, { object: 'list', data: state.models.map((id) => ({ id, object: 'model', created: 1, owned_by: 'library' })) });
    }
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      const answer = current;
      if ('status' in answer) return json(answer.status, { error: { message: 'the server failed', type: 'server_error' } });
      res.on('close', () => {
        if (!res.writableFinished && !cutByServer.has(res)) events.emit('client-close');
      });
      return stream(res, answer);
    }
    if (req.method === 'POST' && path === '/v1/embeddings') {
      if (!state.embeddings) return json(404, { error: { message: 'no embeddings here' } });
      const input = (parsed as { input?: string | string[] })?.input ?? [];
      const texts = Array.isArray(input) ? input : [input];
      return json(200, { object: 'list', data: texts.map((t, index) => ({ object: 'embedding', index, embedding: hashedEmbedding(String(t)) })) });
    }
    json(404, { error: { message: `no route ${req.method} ${path}` } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    get models() {
      return state.models;
    },
    set models(value) {
      state.models = value;
    },
    get embeddings() {
      return state.embeddings;
    },
    set embeddings(value) {
      state.embeddings = value;
    },
    requests,
    get chats() {
      return requests.filter((r) => r.path === '/v1/chat/completions');
    },
    answer: (answer) => (current = answer),
    release: () => events.emit('release'),
    nextClientClose: () => once(events, 'client-close').then(() => undefined),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
