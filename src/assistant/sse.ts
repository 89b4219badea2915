/**
 * Server-sent events both ways: reading the language model server's stream (the `data:` of each
 * event) and framing the chat's own events.
 */
import { EventStreamParser } from './event-stream.ts';

/** One event of the chat's answer: exactly `data: <JSON>` and a blank line. */
export const sseFrame = (event: object): string => `data: ${JSON.stringify(event)}\n\n`;

/** Response headers of an event stream: no caching, no transformation, no buffering by proxies (nginx reads X-Accel-Buffering). */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/**
 * The data of each event of a byte stream, as the EventSource standard reads it (event-stream.ts). An
 * event left unfinished when the stream ends is dropped, as a browser drops it.
 */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const parser = new EventStreamParser();
  for await (const chunk of body) yield* parser.push(decoder.decode(chunk, { stream: true }));
}
