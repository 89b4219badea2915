/**
 * What an engine result means (docs/policy.md#verdicts): true denies; a string is a deny
 * message; a list holds denies and warnings (an object entry warns when its severity is warn, low
 * or info); {warn: [...], deny: [...]} lists both; {violations: [{severity, message}]} goes by
 * severity; {deny: boolean} denies when true. Anything else, a missing result included, allows.
 */

export interface Findings {
  denies: string[];
  warnings: string[];
}

const WARN_SEVERITIES = new Set(['warn', 'warning', 'low', 'info']);
const MAX_MESSAGES = 50;
const MAX_MESSAGE_LENGTH = 1000;

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

/** A message as stored and shown: text, bounded; `fallback` when the engine gave none. */
function messageOf(value: unknown, fallback: string): string {
  const text = typeof value === 'string' ? value.trim() : value === undefined || value === null ? '' : JSON.stringify(value);
  return (text || fallback).slice(0, MAX_MESSAGE_LENGTH);
}

function entryMessage(entry: Record<string, unknown>, fallback: string): string {
  return messageOf(entry.message ?? entry.msg ?? entry.reason, fallback);
}

/** One list entry: a string denies; an object denies or warns by its severity. */
function addEntry(findings: Findings, entry: unknown, fallback: string, as?: 'deny' | 'warn'): void {
  if (isObject(entry)) {
    const severity = typeof entry.severity === 'string' ? entry.severity.toLowerCase() : '';
    const warns = as ? as === 'warn' : WARN_SEVERITIES.has(severity);
    (warns ? findings.warnings : findings.denies).push(entryMessage(entry, fallback));
  } else if (entry !== false && entry !== null && entry !== undefined) {
    (as === 'warn' ? findings.warnings : findings.denies).push(messageOf(entry === true ? '' : entry, fallback));
  }
}

export function parseVerdict(result: unknown, fallback: string): Findings {
  const findings: Findings = { denies: [], warnings: [] };
  if (result === true) findings.denies.push(fallback);
  else if (typeof result === 'string') findings.denies.push(messageOf(result, fallback));
  else if (Array.isArray(result)) for (const entry of result) addEntry(findings, entry, fallback);
  else if (isObject(result)) {
    if (Array.isArray(result.violations)) for (const entry of result.violations) addEntry(findings, entry, fallback);
    else if (typeof result.deny === 'boolean') {
      if (result.deny) findings.denies.push(fallback);
      if (Array.isArray(result.warn)) for (const entry of result.warn) addEntry(findings, entry, fallback, 'warn');
    } else {
      if (Array.isArray(result.deny)) for (const entry of result.deny) addEntry(findings, entry, fallback, 'deny');
      if (Array.isArray(result.warn)) for (const entry of result.warn) addEntry(findings, entry, fallback, 'warn');
    }
  }
  return { denies: findings.denies.slice(0, MAX_MESSAGES), warnings: findings.warnings.slice(0, MAX_MESSAGES) };
}
