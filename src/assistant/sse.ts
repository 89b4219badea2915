/**
 * Server-sent events both ways: reading the language model server's stream (the `data:` of each
 * event) and framing the chat's own events.
 */

/** One event of the chat's answer: exactly `data: <JSON>` and a blank line. */
export const sseFrame = (event: object): string => `data: ${JSON.stringify(event)}\n\n`;

/** Response headers of an event stream: no caching, no transformation, no buffering by proxies (nginx reads X-Accel-Buffering). */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;

/**
 * The data of each event of a byte stream, as the EventSource standard reads it: lines end with
 * CR, LF or CRLF; `data:` lines (one optional space after the colon) of one event are joined with
 * LF; a blank line ends the event; comments and other fields are skipped. An event left unfinished
 * when the stream ends is dropped, as a browser drops it.
 */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  // A CR at the end of a chunk may be the first half of a CRLF split across chunks.
  let skipLf = false;
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer[i];
      if (c === '\n' && skipLf && i === start) {
        start = i + 1;
        skipLf = false;
        continue;
      }
      skipLf = false;
      if (c !== '\n' && c !== '\r') continue;
      const line = buffer.slice(start, i);
      if (c === '\r') {
        if (buffer[i + 1] === '\n') i++;
        else if (i + 1 === buffer.length) skipLf = true;
      }
      start = i + 1;
      if (line === '') {
        if (data.length) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(line[5] === ' ' ? 6 : 5));
      }
    }
    buffer = buffer.slice(start);
  }
}
