/**
 * Resolved choices kept in this process for their source's cache_ttl: one cache for every template,
 * user and launch, keyed by the variable, a hash of the whole source configuration and whatever
 * else the answer depends on (see resolve.ts). Failures are never stored. The cache holds at most
 * `maxEntries` answers; the oldest stored goes first.
 */
import { createHash } from 'node:crypto';
import { descend } from '../../../db/json-depth.ts';

interface Entry {
  choices: string[];
  expires: number;
}

/** JSON with object keys sorted, so the same configuration always hashes the same. */
function canonical(value: unknown, depth = 0): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, descend(depth))).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k], descend(depth))}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function cacheKey(variable: string, source: Record<string, unknown>, scope: string): string {
  return `${variable}\n${createHash('sha256').update(canonical(source)).digest('hex')}\n${scope}`;
}

export class ChoiceCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): string[] | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.choices;
  }

  set(key: string, choices: string[], ttlSeconds: number): void {
    if (ttlSeconds <= 0) return;
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { choices, expires: this.now() + ttlSeconds * 1000 });
  }
}
