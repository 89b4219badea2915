import { createHash } from 'node:crypto';

/**
 * JSON with every object's keys sorted, written as Python's json.dumps(value, sort_keys=True) writes
 * it (", " and ": " separators, non-ASCII escaped): the text a facts hash is taken over.
 */
export function sortedJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(', ')}]`;
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    return `{${keys.map((key) => `${asciiString(key)}: ${sortedJson(record[key])}`).join(', ')}}`;
  }
  if (typeof value === 'string') return asciiString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  return JSON.stringify(value) ?? 'null';
}

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[\u007f-\uffff]/g;
const asciiString = (text: string) => JSON.stringify(text).replace(NON_ASCII, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** SHA-256 (hex) of the facts' sorted JSON. */
export const factsHash = (facts: unknown): string => createHash('sha256').update(sortedJson(facts)).digest('hex');
