// PostgreSQL text and jsonb cannot hold U+0000: a value carrying one fails the whole statement
// ("invalid byte sequence for encoding UTF8: 0x00", "unsupported Unicode escape sequence").

import { descend } from './json-depth.ts';

/** What a NUL in a run's output is stored as: the Unicode replacement character. */
export const NUL_REPLACEMENT = '\uFFFD';

const NUL = /\0/g;

/** Whether a string, or any string or key inside an array or object, holds a NUL. */
export function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) {
    const below = descend(depth);
    return value.some((v) => containsNul(v, below));
  }
  if (value && typeof value === 'object') {
    const below = descend(depth);
    return Object.entries(value).some(([key, v]) => key.includes('\0') || containsNul(v, below));
  }
  return false;
}

/** The text with every NUL replaced by NUL_REPLACEMENT. */
export const replaceNul = (text: string): string => (text.includes('\0') ? text.replace(NUL, NUL_REPLACEMENT) : text);

/** replaceNul through a JSON-like value (strings and keys); the value itself when it holds no NUL. */
export function replaceNulDeep<T>(value: T, depth = 0): T {
  if (!containsNul(value, depth)) return value;
  if (typeof value === 'string') return replaceNul(value) as T;
  const below = descend(depth);
  if (Array.isArray(value)) return value.map((v) => replaceNulDeep(v, below)) as T;
  return Object.fromEntries(Object.entries(value as object).map(([key, v]) => [replaceNul(key), replaceNulDeep(v, below)])) as T;
}
