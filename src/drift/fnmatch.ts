/**
 * Python's fnmatch.fnmatchcase: `*`, `?`, `[seq]` and `[!seq]` (with ranges) over the whole name.
 * Matched without regular expressions, in at most len(name) × len(pattern) steps, so a rule's pattern
 * cannot make the service backtrack for long.
 */
type Token = { kind: 'star' } | { kind: 'any' } | { kind: 'char'; char: string } | { kind: 'set'; negate: boolean; ranges: [string, string][] };

export function fnmatchCase(name: string, pattern: string): boolean {
  const tokens = parse(pattern);
  const chars = [...name];
  let p = 0;
  let n = 0;
  let starAt = -1;
  let starName = 0;
  while (n < chars.length) {
    const token = tokens[p];
    if (token && token.kind !== 'star' && matchesOne(token, chars[n])) {
      p++;
      n++;
    } else if (token?.kind === 'star') {
      starAt = p++;
      starName = n;
    } else if (starAt >= 0) {
      p = starAt + 1;
      n = ++starName;
    } else return false;
  }
  while (tokens[p]?.kind === 'star') p++;
  return p === tokens.length;
}

function matchesOne(token: Exclude<Token, { kind: 'star' }>, char: string): boolean {
  if (token.kind === 'any') return true;
  if (token.kind === 'char') return token.char === char;
  const inside = token.ranges.some(([from, to]) => char >= from && char <= to);
  return inside !== token.negate;
}

function parse(pattern: string): Token[] {
  const chars = [...pattern];
  const tokens: Token[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '*') {
      if (tokens[tokens.length - 1]?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') tokens.push({ kind: 'any' });
    else if (c === '[') {
      const set = parseSet(chars, i);
      if (set) {
        tokens.push(set.token);
        i = set.end;
      } else tokens.push({ kind: 'char', char: c });
    } else tokens.push({ kind: 'char', char: c });
  }
  return tokens;
}

/** A `[...]` set starting at `start`, or null when it is not closed (then `[` is an ordinary character). */
function parseSet(chars: string[], start: number): { token: Token; end: number } | null {
  let i = start + 1;
  const negate = chars[i] === '!';
  if (negate) i++;
  // A `]` first in the set is one of its characters.
  let end = chars[i] === ']' ? i + 1 : i;
  while (end < chars.length && chars[end] !== ']') end++;
  if (end >= chars.length) return null;
  const body = chars.slice(i, end);
  const ranges: [string, string][] = [];
  for (let k = 0; k < body.length; k++) {
    if (body[k + 1] === '-' && k + 2 < body.length) {
      ranges.push([body[k], body[k + 2]]);
      k += 2;
    } else ranges.push([body[k], body[k]]);
  }
  return { token: { kind: 'set', negate, ranges }, end };
}
