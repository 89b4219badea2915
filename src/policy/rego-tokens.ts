/**
 * Rego source cut into tokens the way the policy engine's scanner cuts it (Open Policy Agent's
 * v1/ast/internal/scanner): comments run to the end of the line, "strings" take JSON escapes,
 * `raw strings` none, and template strings ($"…{expr}…" and $`…{expr}…`, where \{ is a literal
 * brace) are scanned as code inside their braces. Whitespace and comments stay in the stream: a
 * reference only continues across `.` or `[` written right after it, as the engine reads it.
 */

export type Token =
  | { kind: 'ident'; text: string }
  | { kind: 'string'; value: string }
  /** A piece of a template string's literal text: never a name. */
  | { kind: 'template' }
  | { kind: 'number' }
  | { kind: 'punct'; text: string }
  | { kind: 'space' }
  | { kind: 'comment' }
  /** Something the engine refuses to scan (the module then fails to parse there). */
  | { kind: 'other' };

const isLetter = (ch: string) => /^[A-Za-z_]$/.test(ch);
const isDecimal = (ch: string) => ch >= '0' && ch <= '9';
const continuesName = (ch: string) => isLetter(ch) || /^\p{Nd}$/u.test(ch);
const isSpace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
const JSON_ESCAPES = new Set(['\\', '"', '/', 'b', 'f', 'n', 'r', 't']);

/** How many characters after a backslash the engine's scanner steps over (\u: the u and three more). */
const escapeLength = (next: string) => (JSON_ESCAPES.has(next) ? 1 : next === 'u' ? 4 : 0);

/** A template string being read: which quote ends it, and how deep the code in its braces is. */
interface OpenTemplate {
  raw: boolean;
  depth: number;
}

export function regoTokens(source: string): Token[] {
  const chars = Array.from(source.replace(/^\uFEFF/, ''));
  const tokens: Token[] = [];
  const templates: OpenTemplate[] = [];
  let i = 0;
  const at = (offset = 0) => chars[i + offset] ?? '';

  /** The literal text of a template string up to its end or its next `{` (which opens code). */
  const templateText = (raw: boolean) => {
    tokens.push({ kind: 'template' });
    while (i < chars.length) {
      const ch = chars[i++];
      if (ch === (raw ? '`' : '"')) return;
      if (!raw && ch === '\n') return;
      if (ch === '{') {
        templates.push({ raw, depth: 0 });
        return;
      }
      if (ch === '\\') i += at() === '{' ? 1 : raw ? 0 : escapeLength(at());
    }
  };

  while (i < chars.length) {
    const ch = at();
    if (isSpace(ch)) {
      while (isSpace(at())) i++;
      tokens.push({ kind: 'space' });
    } else if (isLetter(ch)) {
      const start = i;
      while (continuesName(at())) i++;
      tokens.push({ kind: 'ident', text: chars.slice(start, i).join('') });
    } else if (isDecimal(ch)) {
      // As the engine: digits, a fraction, an exponent, then any letters glued on (an invalid number).
      while (isDecimal(at())) i++;
      if (at() === '.') for (i++; isDecimal(at()); ) i++;
      if (at() === 'e' || at() === 'E') {
        i++;
        if (at() === '+' || at() === '-') i++;
        while (isDecimal(at())) i++;
      }
      while (continuesName(at())) i++;
      tokens.push({ kind: 'number' });
    } else if (ch === '#') {
      while (i < chars.length && at() !== '\n') i++;
      tokens.push({ kind: 'comment' });
    } else if (ch === '"') {
      tokens.push(jsonString());
    } else if (ch === '`') {
      const end = chars.indexOf('`', i + 1);
      const stop = end < 0 ? chars.length : end;
      tokens.push({ kind: 'string', value: chars.slice(i + 1, stop).join('') });
      i = stop + 1;
    } else if (ch === '$' && (at(1) === '"' || at(1) === '`')) {
      const raw = at(1) === '`';
      i += 2;
      templateText(raw);
    } else if (ch === '}' && templates.length && templates.at(-1)!.depth === 0) {
      i++;
      templateText(templates.pop()!.raw);
    } else {
      const pair = ch + at(1);
      const text = [':=', '==', '!=', '<=', '>='].includes(pair) ? pair : ch;
      i += text.length;
      if (templates.length && text === '{') templates.at(-1)!.depth++;
      if (templates.length && text === '}') templates.at(-1)!.depth--;
      tokens.push('.[](){},;:=+-*/%&|<>!'.includes(text[0]) ? { kind: 'punct', text } : { kind: 'other' });
    }
  }
  return tokens;

  /** A "string": its value as the engine decodes it (JSON), or `other` when it does not decode. */
  function jsonString(): Token {
    const start = i;
    for (i++; i < chars.length; i++) {
      const ch = chars[i];
      if (ch === '\n') break;
      if (ch === '"') {
        i++;
        try {
          return { kind: 'string', value: JSON.parse(chars.slice(start, i).join('')) as string };
        } catch {
          return { kind: 'other' };
        }
      }
      if (ch === '\\') i += escapeLength(chars[i + 1] ?? '');
    }
    return { kind: 'other' };
  }
}

/** One part of a reference: a name or string written out, or something computed at evaluation. */
export type Segment = string | null;

/** Skips whitespace and comments (allowed inside brackets). */
function skipBlank(tokens: Token[], index: number): number {
  while (index < tokens.length && (tokens[index].kind === 'space' || tokens[index].kind === 'comment')) index++;
  return index;
}

/**
 * The reference that starts with the name at `index` (`a.b["c"][x]`): its written segments, a null
 * for the first computed one (nothing after it is read), and the index after it.
 */
export function referenceAt(tokens: Token[], index: number): { segments: Segment[]; end: number } {
  const head = tokens[index];
  const segments: Segment[] = [head.kind === 'ident' ? head.text : null];
  let i = index + 1;
  while (i < tokens.length) {
    const token = tokens[i];
    if (token.kind !== 'punct' || (token.text !== '.' && token.text !== '[')) break;
    if (token.text === '.') {
      const name = tokens[i + 1];
      if (name?.kind !== 'ident') {
        segments.push(null);
        break;
      }
      segments.push(name.text);
      i += 2;
      continue;
    }
    const inside = skipBlank(tokens, i + 1);
    const close = skipBlank(tokens, inside + 1);
    const value = tokens[inside];
    const closing = tokens[close];
    if (value?.kind !== 'string' || closing?.kind !== 'punct' || closing.text !== ']') {
      segments.push(null);
      break;
    }
    segments.push(value.value);
    i = close + 1;
  }
  return { segments, end: i };
}

/** Whether the name at `index` continues a reference (`input.data`) rather than starting one. */
export function followsDot(tokens: Token[], index: number): boolean {
  const before = tokens[index - 1];
  return before?.kind === 'punct' && before.text === '.';
}
