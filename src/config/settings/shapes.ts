/**
 * JSON settings with a declared shape: built on fields.json() so they share its metadata,
 * but refusing values of the wrong shape instead of storing anything.
 */
import { isIP } from 'node:net';
import { FieldProblem, json, type Field, type FieldOptions } from '../../api/fields.ts';

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'object') return 'dict';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/** A JSON setting whose value `parse` checks (null only when the field is nullable). */
export function shaped(opts: FieldOptions, parse: (value: unknown) => unknown): Field {
  const field = json(opts);
  return {
    ...field,
    parse: (value) => {
      if (value === null) {
        if (field.nullable) return null;
        throw new FieldProblem('This field may not be null.');
      }
      return parse(value);
    },
  };
}

export interface StringListOptions extends FieldOptions {
  /** Checks one item; throws FieldProblem with a message naming the problem. */
  item?: (item: string) => void;
}

/** A JSON list of strings. */
export function stringList(opts: StringListOptions = {}): Field {
  const { item, ...rest } = opts;
  return shaped({ default: [], ...rest }, (value) => {
    if (!Array.isArray(value)) throw new FieldProblem(`Expected a list of items but got type "${typeName(value)}".`);
    return value.map((v, i) => {
      if (typeof v !== 'string') throw new FieldProblem(`Item ${i + 1}: not a valid string.`);
      if (v.trim() === '') throw new FieldProblem(`Item ${i + 1}: may not be blank.`);
      item?.(v.trim());
      return v.trim();
    });
  });
}

/** A JSON object whose values are strings (numbers are accepted and turned into strings). */
export function stringMap(opts: FieldOptions = {}): Field {
  return shaped({ default: {}, ...opts }, (value) => {
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new FieldProblem(`Expected a dictionary of items but got type "${typeName(value)}".`);
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (typeof v === 'number' && Number.isFinite(v)) out[k] = String(v);
      else if (typeof v === 'string') out[k] = v;
      else throw new FieldProblem(`Value of "${k}" is not a valid string.`);
    }
    return out;
  });
}

export interface IntegerMapOptions extends FieldOptions {
  /** The accepted keys; missing ones take their value from the default. */
  default: Record<string, number>;
  min?: number;
}

/** A JSON object with a fixed set of keys holding integers. */
export function integerMap(opts: IntegerMapOptions): Field {
  const known = Object.keys(opts.default);
  const min = opts.min ?? 1;
  return shaped(opts, (value) => {
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new FieldProblem(`Expected a dictionary of items but got type "${typeName(value)}".`);
    }
    const input = value as Record<string, unknown>;
    const unknown = Object.keys(input).filter((k) => !known.includes(k));
    if (unknown.length) throw new FieldProblem(`Invalid key names: ${unknown.join(', ')}. Allowed: ${known.join(', ')}.`);
    const out: Record<string, number> = { ...opts.default };
    for (const [k, v] of Object.entries(input)) {
      if (typeof v !== 'number' || !Number.isInteger(v)) throw new FieldProblem(`${k}: a valid integer is required.`);
      if (v < min) throw new FieldProblem(`${k}: ensure this value is greater than or equal to ${min}.`);
      out[k] = v;
    }
    return out;
  });
}

const HOSTNAME = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/** A host name (optionally `*.` for every subdomain), an IP address or a CIDR network. */
export function hostOrNetwork(item: string): void {
  const slash = item.indexOf('/');
  if (slash >= 0) {
    const address = item.slice(0, slash);
    const bits = item.slice(slash + 1);
    const version = isIP(address);
    const max = version === 4 ? 32 : 128;
    if (version && /^\d{1,3}$/.test(bits) && Number(bits) <= max) return;
  } else if (isIP(item) || HOSTNAME.test(item)) {
    return;
  }
  throw new FieldProblem(`"${item}" is not a host name, IP address or CIDR network.`);
}
