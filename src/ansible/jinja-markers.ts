/**
 * Where Ansible would find a Jinja template in a string a user sent. Jinja's lexer opens a tag at
 * every `{{`, `{%` and `{#`, whatever follows (whitespace control, `{{-` or `{%+`, comes after the
 * opening), and Ansible templates any string that holds one of them (is_possibly_template). So the
 * openings alone decide; what lies between them is never looked at. `{ {` is no opening for Jinja.
 */

export const INLINE_JINJA = 'Inline Jinja variables are not allowed.';

const OPENS_TAG = new Set(['{', '%', '#']);

/** True when `text` holds a Jinja opening anywhere. */
export function hasJinjaOpening(text: string): boolean {
  for (let i = text.indexOf('{'); i !== -1 && i < text.length - 1; i = text.indexOf('{', i + 1)) {
    if (OPENS_TAG.has(text[i + 1])) return true;
  }
  return false;
}

// Python's escapes as Ansible's parse_kv decodes them in key=value arguments (and JSON's \uXXXX).
const NUMERIC_ESCAPE = /\\(?:U([0-9a-fA-F]{8})|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2}))/g;

function decodeNumericEscapes(text: string): string {
  return text.replace(NUMERIC_ESCAPE, (whole, long: string, short: string, byte: string) => {
    const code = parseInt(long ?? short ?? byte, 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/**
 * Would Ansible template these ad hoc module arguments? `ansible -a` reads them as JSON when they
 * look like an object, else as key=value pairs whose values have their escapes decoded
 * (`chdir=\x7b\x7b ... \x7d\x7d` becomes `{{ ... }}`), and templates the result. Every escape
 * that can make a character is decoded before looking for openings; `\N{...}` (a character by
 * name) is refused outright rather than resolved.
 */
export function moduleArgsHaveJinja(args: string): boolean {
  if (hasJinjaOpening(args)) return true;
  if (/\\N\{/.test(args)) return true;
  return hasJinjaOpening(decodeNumericEscapes(args));
}
