// PostgreSQL text and jsonb cannot hold U+0000: a value carrying one fails the whole statement
// ("invalid byte sequence for encoding UTF8: 0x00", "unsupported Unicode escape sequence").

/** What a NUL in a run's output is stored as: the Unicode replacement character. */
export const NUL_REPLACEMENT = '\uFFFD';

const NUL = /\0/g;

/** Whether a string, or any string or key inside an array or object, holds a NUL. */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(containsNul);
  if (value && typeof value === 'object') return Object.entries(value).some(([key, v]) => key.includes('\0') || containsNul(v));
  return false;
}

/** The text with every NUL replaced by NUL_REPLACEMENT. */
export const replaceNul = (text: string): string => (text.includes('\0') ? text.replace(NUL, NUL_REPLACEMENT) : text);

/** replaceNul through a JSON-like value (strings and keys); the value itself when it holds no NUL. */
export function replaceNulDeep<T>(value: T): T {
  if (!containsNul(value)) return value;
  if (typeof value === 'string') return replaceNul(value) as T;
  if (Array.isArray(value)) return value.map(replaceNulDeep) as T;
  return Object.fromEntries(Object.entries(value as object).map(([key, v]) => [replaceNul(key), replaceNulDeep(v)])) as T;
}
