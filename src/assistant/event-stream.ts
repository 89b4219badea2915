/**
 * Reading a `text/event-stream` body as the EventSource standard does, for the assistant's reading of
 * the language model server's stream (src/assistant/sse.ts) and the console's reading of the
 * assistant's (ui/src/assistant/event-stream.ts): the bytes arrive in chunks that may end anywhere,
 * inside a character, a line, a CRLF or an event, and one chunk may hold several events. Plain
 * TypeScript without Node or DOM APIs, so that both sides use this one.
 */

/** Takes the stream's text piece by piece; answers the data of each event a piece completes. */
export class EventStreamParser {
  private buffer = '';
  private data: string[] = [];

  push(text: string): string[] {
    this.buffer += text;
    const events: string[] = [];
    const ends = /\r\n|\r|\n/g;
    let start = 0;
    for (let end = ends.exec(this.buffer); end; end = ends.exec(this.buffer)) {
      // A CR that ends the text so far may be the first half of a CRLF: the next piece tells.
      if (end[0] === '\r' && end.index === this.buffer.length - 1) break;
      this.line(this.buffer.slice(start, end.index), events);
      start = end.index + end[0].length;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length) events.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    const colon = line.indexOf(':');
    // A line starting with a colon is a comment; fields other than data (event, id, retry) mean nothing here.
    if (colon === 0 || (colon < 0 ? line : line.slice(0, colon)) !== 'data') return;
    const value = colon < 0 ? '' : line.slice(colon + 1);
    this.data.push(value.startsWith(' ') ? value.slice(1) : value);
  }
}
