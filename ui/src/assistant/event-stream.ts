/**
 * Reading the assistant's `text/event-stream` answer to a POST (which EventSource cannot send), with
 * the parser the assistant itself reads its language model server with.
 */
import { EventStreamParser } from '../../../src/assistant/event-stream.ts';

/**
 * The events of a response body, each event's data parsed as JSON, as they arrive. An event left
 * unfinished when the body ends is dropped, as browsers drop it.
 */
export async function* jsonEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<unknown> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new EventStreamParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      for (const data of parser.push(decoder.decode(value, { stream: true }))) yield parseJson(data);
    }
  } finally {
    // Stops the download when the reader leaves early (a stop, an error); a no-op once the body ended.
    await reader.cancel().catch(() => undefined);
  }
}

function parseJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new Error('The assistant sent an event that is not JSON.');
  }
}
