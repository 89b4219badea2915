/** A small Rego tokenizer for highlighting: comments, strings, numbers, keywords, operators and names. */
export type TokenKind = 'comment' | 'string' | 'number' | 'keyword' | 'builtin' | 'operator' | 'text';

export interface Token {
  kind: TokenKind;
  text: string;
}

const KEYWORDS = new Set([
  'package', 'import', 'default', 'if', 'else', 'not', 'some', 'every', 'in', 'with', 'as', 'contains', 'true', 'false', 'null',
]);
const BUILTINS = new Set(['input', 'data', 'deny', 'warn', 'allow', 'violations', 'msg', 'count', 'sprintf', 'startswith', 'endswith', 'contains', 'object', 'array', 'set']);

const RULES: [TokenKind | 'word', RegExp][] = [
  ['comment', /#[^\n]*/y],
  ['string', /"(?:[^"\\\n]|\\.)*"?|`[^`]*`?/y],
  ['number', /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y],
  ['word', /[A-Za-z_][A-Za-z0-9_]*/y],
  ['operator', /:=|==|!=|<=|>=|[=<>+\-*/%|&:]/y],
];

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let plain = '';
  const flush = () => {
    if (plain) tokens.push({ kind: 'text', text: plain });
    plain = '';
  };
  let at = 0;
  outer: while (at < source.length) {
    for (const [kind, pattern] of RULES) {
      pattern.lastIndex = at;
      const match = pattern.exec(source);
      if (!match || !match[0]) continue;
      flush();
      const text = match[0];
      const wordKind: TokenKind = KEYWORDS.has(text) ? 'keyword' : BUILTINS.has(text) ? 'builtin' : 'text';
      tokens.push({ kind: kind === 'word' ? wordKind : kind, text });
      at += text.length;
      continue outer;
    }
    plain += source[at];
    at += 1;
  }
  flush();
  return tokens;
}
