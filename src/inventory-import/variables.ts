import { descend } from '../db/json-depth.ts';
import { parseVariables } from '../inventory/variables.ts';
import type { Variables } from './parse.ts';

const isMapping = (v: unknown): v is Variables => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The variables stored as text on an inventory, group or host (JSON or YAML) as a mapping; {} for none. */
export const readVariables = (text: string | null | undefined): Variables => parseVariables(text);

/** Variables as stored by an import: JSON as Python's json.dumps writes it (AWX does), '' for none. */
export function variablesText(vars: Variables): string {
  return Object.keys(vars).length ? pythonJson(vars) : '';
}

function pythonJson(value: unknown, depth = 0): string {
  if (Array.isArray(value)) return `[${value.map((v) => pythonJson(v, descend(depth))).join(', ')}]`;
  if (isMapping(value)) return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pythonJson(v, descend(depth))}`).join(', ')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** Deep equality of two variable values (key order ignored). */
export function sameVariables(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameVariables(v, b[i], descend(depth)));
  if (isMapping(a) && isMapping(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameVariables(a[k], b[k], descend(depth)));
  }
  return false;
}

/** What a host or group's variables become: the source's alone (overwrite_vars) or merged over the stored ones. */
export function combineVariables(stored: Variables, incoming: Variables, overwriteVars: boolean): Variables {
  return overwriteVars ? incoming : { ...stored, ...incoming };
}
