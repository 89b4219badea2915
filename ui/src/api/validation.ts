import { ApiError } from './errors';

/** The messages of a nested field of a 400 answer ({inputs: {field: [msg]}}), by sub-field. */
export function nestedErrors(error: unknown, field: string): { byName: Record<string, string>; other?: string } {
  if (!(error instanceof ApiError) || error.status !== 400 || !error.body || typeof error.body !== 'object') return { byName: {} };
  const value = (error.body as Record<string, unknown>)[field];
  if (value === undefined) return { byName: {} };
  const text = (v: unknown) => (Array.isArray(v) ? v.map(String).join(' ') : String(v));
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return { byName: Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, text(v)])) };
  }
  return { byName: {}, other: text(value) };
}
