/**
 * JSON text as Python's json.dumps writes it with its defaults, which is how AWX stores the JSON it
 * keeps in text fields (a job's extra_vars, a template's extra_vars or variables given as a mapping):
 * ", " between items, ": " after keys, every character past ASCII escaped as \uXXXX (ensure_ascii).
 * Clients compare these strings, so they are written alike here.
 */
export function pythonJson(value: unknown): string {
  return write(value) ?? 'null';
}

const NON_ASCII = /[\u0080-\uffff]/g;

/** A JSON string literal with non-ASCII characters escaped, surrogate pairs as two escapes (as Python). */
const quote = (text: string) => JSON.stringify(text).replace(NON_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** What JSON.stringify would write for `value`, in Python's spacing; undefined where it writes nothing. */
function write(input: unknown): string | undefined {
  const value = typeof (input as { toJSON?: unknown })?.toJSON === 'function' ? (input as { toJSON(): unknown }).toJSON() : input;
  if (typeof value === 'string') return quote(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => write(item) ?? 'null').join(', ')}]`;
  const entries = Object.entries(value).flatMap(([key, item]) => {
    const text = write(item);
    return text === undefined ? [] : [`${quote(key)}: ${text}`];
  });
  return `{${entries.join(', ')}}`;
}
