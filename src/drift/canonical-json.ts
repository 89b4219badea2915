import { createHash } from 'node:crypto';
import { descend } from '../db/json-depth.ts';

/**
 * JSON with every object's keys sorted, written as Python's json.dumps(value, sort_keys=True) writes
 * it (", " and ": " separators, non-ASCII escaped): the text a facts hash is taken over.
 */
export function sortedJson(value: unknown, depth = 0): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return asciiString(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  // Written by concatenation rather than map and join: hashing every gathered host's facts is most of a capture's own work.
  if (Array.isArray(value)) {
    let out = '[';
    const below = descend(depth);
    for (let i = 0; i < value.length; i++) out += (i ? ', ' : '') + sortedJson(value[i], below);
    return `${out}]`;
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    let out = '{';
    const below = descend(depth);
    for (let i = 0; i < keys.length; i++) out += `${i ? ', ' : ''}${asciiString(keys[i])}: ${sortedJson(record[keys[i]], below)}`;
    return `${out}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[\u007f-\uffff]/g;
// eslint-disable-next-line no-control-regex
const HAS_NON_ASCII = /[\u007f-\uffff]/;
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
const asciiString = (text: string) => {
  const json = JSON.stringify(text);
  return HAS_NON_ASCII.test(json) ? json.replace(NON_ASCII, escaped) : json;
};

/** SHA-256 (hex) of the facts' sorted JSON. */
export const factsHash = (facts: unknown): string => createHash('sha256').update(sortedJson(facts)).digest('hex');

const writesNull = (value: unknown) => value === null || value === undefined || (typeof value === 'number' && !Number.isFinite(value));

/**
 * Whether the two values' sorted JSON is the same text, without writing it: how a capture compares
 * each fact of a host with its last snapshot (most are equal, and writing both sides costs more).
 */
export function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (writesNull(a) || writesNull(b)) return writesNull(a) && writesNull(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameJson(item, b[i], descend(depth)));
  }
  if (typeof a === 'object' && typeof b === 'object') {
    const left = a as Record<string, unknown>;
    const right = b as Record<string, unknown>;
    const keys = Object.keys(left);
    if (keys.length !== Object.keys(right).length) return false;
    return keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key], descend(depth)));
  }
  // Distinct strings, finite numbers and booleans write distinct text; anything else is written to see.
  if (['string', 'number', 'boolean'].includes(typeof a) && ['string', 'number', 'boolean'].includes(typeof b)) return false;
  return sortedJson(a) === sortedJson(b);
}
