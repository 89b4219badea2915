/**
 * The language model server through the OpenAI-compatible API that Ollama, vLLM, the llama.cpp
 * server and hosted endpoints speak: GET /models, POST /chat/completions (streamed), POST
 * /embeddings. The API key goes only into the Authorization header; nothing here puts it, or what
 * the server answers on failure (which may echo it), into an error message.
 */
import type { Embedder } from './retrieval/retrieval.ts';
import type { LlmConfig } from './config.ts';
import { sseData } from './sse.ts';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A failure of the language model server, worded for the person asking. */
export class LlmError extends Error {}

/** How long the health check waits for GET /models. */
export const MODELS_TIMEOUT_MS = 2000;

const unreachable = () => new LlmError('The language model server is not reachable.');
const cutOff = () => new LlmError('The answer of the language model server was cut off.');

function refused(status: number, model: string): LlmError {
  if (status === 401 || status === 403) return new LlmError(`The language model server refused the request (HTTP ${status}): check SVC_ASSISTANT_LLM_API_KEY.`);
  if (status === 404) return new LlmError(`The language model server answered HTTP 404: is the model "${model}" available there?`);
  return new LlmError(`The language model server answered HTTP ${status}.`);
}

/** Whether the server's model list holds `model` (Ollama lists `llama3.1` as `llama3.1:latest`). */
export function listsModel(ids: readonly string[], model: string): boolean {
  const bare = (id: string) => id.replace(/:latest$/, '');
  return ids.some((id) => id === model || bare(id) === bare(model));
}

const isAbort = (err: unknown) => err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');

export class LlmClient {
  constructor(readonly config: LlmConfig) {}

  private headers(json: boolean): Record<string, string> {
    return {
      accept: json ? 'application/json' : 'text/event-stream',
      ...(json && { 'content-type': 'application/json' }),
      ...(this.config.apiKey && { authorization: `Bearer ${this.config.apiKey}` }),
    };
  }

  /** Whether the server answers GET /models in time and lists the configured model. */
  async hasModel(timeoutMs = MODELS_TIMEOUT_MS): Promise<boolean> {
    try {
      const res = await fetch(`${this.config.baseUrl}/models`, { headers: this.headers(true), signal: AbortSignal.timeout(timeoutMs) });
      if (!res.ok) {
        await res.body?.cancel();
        return false;
      }
      const body = (await res.json()) as { data?: Array<{ id?: unknown }> };
      const ids = Array.isArray(body?.data) ? body.data.map((m) => m?.id).filter((id): id is string => typeof id === 'string') : [];
      return listsModel(ids, this.config.model);
    } catch {
      return false;
    }
  }

  /**
   * The answer's text as the server streams it, piece by piece. Throws LlmError when the server
   * cannot be reached, refuses, reports an error or stops before its end (`data: [DONE]`, or a
   * chunk with a finish_reason); aborting `signal` closes the request and ends the stream quietly.
   */
  async *streamChat(messages: readonly ChatMessage[], signal: AbortSignal): AsyncGenerator<string> {
    let res: Response;
    try {
      res = await fetch(`${this.config.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: this.headers(true),
        body: JSON.stringify({ model: this.config.model, messages, stream: true }),
        signal,
      });
    } catch (err) {
      if (signal.aborted) return;
      throw isAbort(err) ? cutOff() : unreachable();
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => undefined);
      throw refused(res.status, this.config.model);
    }
    let finished = false;
    try {
      for await (const data of sseData(res.body)) {
        if (data.trim() === '[DONE]') return;
        if (finished) continue;
        let chunk: { choices?: Array<{ delta?: { content?: unknown }; finish_reason?: unknown }>; error?: unknown };
        try {
          chunk = JSON.parse(data);
        } catch {
          throw new LlmError('The language model server sent something that is not an answer.');
        }
        if (chunk?.error !== undefined) throw new LlmError('The language model server reported an error while answering.');
        const choice = chunk?.choices?.[0];
        const content = choice?.delta?.content;
        if (typeof content === 'string' && content !== '') yield content;
        if (choice?.finish_reason) finished = true;
      }
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof LlmError) throw err;
      throw cutOff();
    }
    if (signal.aborted) return;
    // Some servers end a stream after the last chunk without [DONE].
    if (!finished) throw cutOff();
  }

  /**
   * Embeddings through POST /embeddings with the embedding model: null when the server or the model
   * offers none (an error status, no server, or an answer without one vector per text).
   */
  readonly embed: Embedder = async (texts) => {
    if (texts.length === 0) return [];
    let res: Response;
    try {
      res = await fetch(`${this.config.baseUrl}/embeddings`, {
        method: 'POST',
        headers: this.headers(true),
        body: JSON.stringify({ model: this.config.embeddingModel, input: texts }),
      });
    } catch {
      return null;
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => undefined);
      return null;
    }
    const body = (await res.json().catch(() => null)) as { data?: Array<{ embedding?: unknown; index?: unknown }> } | null;
    return embeddingsOf(body?.data, texts.length);
  };
}

/** One finite vector per text, all of one length, in the order of the texts; null otherwise. */
function embeddingsOf(data: Array<{ embedding?: unknown; index?: unknown }> | undefined, count: number): number[][] | null {
  if (!Array.isArray(data) || data.length !== count) return null;
  const ordered = data.every((d) => Number.isInteger(d?.index)) ? [...data].sort((a, b) => (a.index as number) - (b.index as number)) : data;
  const vectors = ordered.map((d) => d?.embedding);
  const valid = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isFinite(x));
  if (!vectors.every(valid)) return null;
  return vectors.every((v) => v.length === vectors[0].length) ? vectors : null;
}
