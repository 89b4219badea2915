import { sameJson, sortedJson } from './canonical-json.ts';
import { classifyFact, VOLATILE_FACTS, type Category, type Severity } from './categories.ts';

export type DiffType = 'added' | 'removed' | 'changed';

export interface FactDiff {
  fact_path: string;
  category: Category;
  severity: Severity;
  diff_type: DiffType;
  summary: string;
  detail: { before: unknown; after: unknown; diff_type: DiffType; truncated?: true };
}

/** A side of a detail longer than this (as JSON) is cut, and the detail marked truncated; the snapshots keep it whole. */
export const DETAIL_MAX_CHARS = 16_384;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const missing = (value: unknown) => value === undefined || value === null;

/** One entry per top-level fact (volatile ones aside) whose value differs between the two sets of facts. */
export function diffFacts(before: Record<string, unknown>, after: Record<string, unknown>): FactDiff[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => !VOLATILE_FACTS.has(key)).sort();
  const diffs: FactDiff[] = [];
  for (const key of keys) {
    const old = before[key];
    const now = after[key];
    if (missing(old) && missing(now)) continue;
    if (sameJson(old, now)) continue;
    const diffType: DiffType = missing(old) ? 'added' : missing(now) ? 'removed' : 'changed';
    diffs.push({ fact_path: key, ...classifyFact(key), diff_type: diffType, summary: summarize(old, now), detail: detailOf(old ?? null, now ?? null, diffType) });
  }
  return diffs;
}

/** Lists: "+N, -M items"; objects: "+N keys, -M keys, ~K keys"; anything else: "old -> new". */
export function summarize(old: unknown, now: unknown): string {
  if ((Array.isArray(old) || missing(old)) && (Array.isArray(now) || missing(now)) && !(missing(old) && missing(now))) {
    const { added, removed } = listChanges((old as unknown[] | undefined) ?? [], (now as unknown[] | undefined) ?? []);
    return `+${added}, -${removed} items`;
  }
  if ((isObject(old) || missing(old)) && (isObject(now) || missing(now))) {
    const a = (old as Record<string, unknown> | undefined) ?? {};
    const b = (now as Record<string, unknown> | undefined) ?? {};
    const added = Object.keys(b).filter((k) => !(k in a)).length;
    const removed = Object.keys(a).filter((k) => !(k in b)).length;
    const changed = Object.keys(b).filter((k) => k in a && !sameJson(a[k], b[k])).length;
    return `+${added} keys, -${removed} keys, ~${changed} keys`;
  }
  return `${scalarText(old)} -> ${scalarText(now)}`;
}

/** Items added and removed, as multisets of their JSON. */
function listChanges(old: unknown[], now: unknown[]): { added: number; removed: number } {
  const counts = new Map<string, number>();
  for (const item of old) counts.set(sortedJson(item), (counts.get(sortedJson(item)) ?? 0) + 1);
  let added = 0;
  for (const item of now) {
    const key = sortedJson(item);
    const left = counts.get(key) ?? 0;
    if (left > 0) counts.set(key, left - 1);
    else added++;
  }
  const removed = [...counts.values()].reduce((n, c) => n + c, 0);
  return { added, removed };
}

const SCALAR_MAX = 200;
function scalarText(value: unknown): string {
  const text = missing(value) ? 'None' : typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > SCALAR_MAX ? `${text.slice(0, SCALAR_MAX)}…` : text;
}

function detailOf(before: unknown, after: unknown, diffType: DiffType): FactDiff['detail'] {
  const cut = (value: unknown) => {
    const text = JSON.stringify(value);
    return text.length > DETAIL_MAX_CHARS ? { value: `${text.slice(0, DETAIL_MAX_CHARS)}… [truncated]`, cut: true } : { value, cut: false };
  };
  const b = cut(before);
  const a = cut(after);
  return { before: b.value, after: a.value, diff_type: diffType, ...(a.cut || b.cut ? { truncated: true as const } : {}) };
}
