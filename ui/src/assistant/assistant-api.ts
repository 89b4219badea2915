/**
 * The assistant service as the console reaches it: under /assistant/ on the console's own origin
 * (the main service passes requests on with the session cookie; writes carry the CSRF token as every
 * write of the console does). See docs/assistant.md for its API.
 */
import { http, readAnswer, requestHeaders } from '../api/client';
import { ApiError } from '../api/errors';
import { jsonEvents } from './event-stream';

const BASE = '/assistant/api/v1';

export interface Turn {
  role: 'user' | 'assistant';
  content: string;
}

export interface Source {
  source: string;
  title: string;
  heading: string;
}

export interface Health {
  status: 'ok' | 'degraded';
  version: string;
  llm_backend: boolean;
  vector_store: boolean;
  model: string;
}

export interface Question {
  message: string;
  /** The console route the question is asked from. */
  page: string;
  /** Earlier turns, oldest first. */
  history: Turn[];
}

export const assistantHealth = () => http.get<Health>(`${BASE}/health`);

type ChatEvent = { token?: unknown; done?: unknown; error?: unknown; sources?: unknown };

/**
 * Asks one question: `onToken` gets each piece of the answer as it arrives; resolves with the
 * sources once the answer is complete. Rejects with the service's message (an error event, an HTTP
 * error as an ApiError), when the answer breaks off, or with an AbortError when `signal` stops it.
 */
export async function askAssistant(question: Question, onToken: (token: string) => void, signal: AbortSignal): Promise<Source[]> {
  const body = { message: question.message, context: { page: question.page }, history: question.history };
  let response: Response;
  try {
    response = await fetch(`${BASE}/chat`, {
      method: 'POST',
      headers: requestHeaders('POST', true, 'text/event-stream'),
      credentials: 'same-origin',
      body: JSON.stringify(body),
      signal,
    });
  } catch (err) {
    if (signal.aborted) throw err;
    throw new Error('The assistant could not be reached: the connection failed.');
  }
  // Throws the service's (or the main service's) {detail} as an ApiError.
  if (!response.ok) await readAnswer(response);
  if (!response.body || !/^text\/event-stream\b/.test(response.headers.get('content-type') ?? '')) {
    throw new Error('The assistant answered with something other than an event stream.');
  }
  try {
    for await (const event of jsonEvents(response.body) as AsyncGenerator<ChatEvent>) {
      if (typeof event.error === 'string') throw new Error(event.error);
      if (typeof event.token === 'string') onToken(event.token);
      if (event.done === true) return Array.isArray(event.sources) ? (event.sources as Source[]) : [];
    }
  } catch (err) {
    // fetch's TypeError: the connection failed while the answer was coming.
    if (signal.aborted || !(err instanceof TypeError)) throw err;
  }
  throw new Error('The answer broke off before it ended.');
}

/** What went wrong, for the conversation: the service's message; a refused request's problems (422) as "field: message". */
export function problemOf(err: unknown): string {
  const detail = err instanceof ApiError && err.body && typeof err.body === 'object' ? (err.body as { detail?: unknown }).detail : undefined;
  if (Array.isArray(detail)) {
    return detail
      .map((problem: { loc?: unknown; msg?: unknown }) => {
        const where = Array.isArray(problem?.loc) ? problem.loc.slice(1).join('.') : '';
        return `${where ? `${where}: ` : ''}${String(problem?.msg ?? problem)}`;
      })
      .join(' ');
  }
  return err instanceof Error ? err.message : String(err);
}
