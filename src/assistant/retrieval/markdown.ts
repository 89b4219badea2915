/** The little of Markdown that chunking needs: headings, fenced code blocks, and text between them. */

export type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'code'; text: string; open: string; close: string }
  | { kind: 'text'; lines: string[] };

/**
 * The blocks of a page in order: ATX headings, fenced code blocks (fences included; an unclosed
 * one runs to the end), and runs of text lines between blank lines.
 */
export function markdownBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let text: string[] = [];
  const endText = () => {
    if (text.length) blocks.push({ kind: 'text', lines: text });
    text = [];
  };
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence && !(fence[2][0] === '`' && fence[3].includes('`'))) {
      endText();
      const body: string[] = [];
      let close = '';
      for (i++; i < lines.length; i++) {
        const end = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[i]);
        if (end && end[1][0] === fence[2][0] && end[1].length >= fence[2].length) {
          close = lines[i];
          break;
        }
        body.push(lines[i]);
      }
      blocks.push({ kind: 'code', text: [line, ...body, ...(close ? [close] : [])].join('\n'), open: line, close: close || fence[1] + fence[2] });
      continue;
    }
    const heading = headingOf(line);
    if (heading) {
      endText();
      blocks.push({ kind: 'heading', ...heading });
    } else if (line.trim() === '') endText();
    else text.push(line);
  }
  endText();
  return blocks;
}

/** An ATX heading line (`## Text ##`) as its level and text, or null. */
function headingOf(line: string): { level: number; text: string } | null {
  const m = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line);
  return m && m[2] ? { level: m[1].length, text: m[2].trim() } : null;
}

/** The text of the first heading outside code blocks. */
export function firstHeading(markdown: string): string | null {
  for (const block of markdownBlocks(markdown)) if (block.kind === 'heading') return block.text;
  return null;
}
