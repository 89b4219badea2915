/**
 * A scanner's config: the tool's own configuration file as text (YAML for all three tools).
 * It must read as a mapping, and may not name code or places outside the scan: keys that load
 * rules from directories (Python the tool would import), fetch from the network or read other files.
 */
import { createHash } from 'node:crypto';
import { parse } from 'yaml';
import type { Tool } from './tools.ts';

const REFUSED_KEYS: Record<Tool, Record<string, string>> = {
  'ansible-lint': {
    rulesdir: 'custom rule directories load Python code',
  },
  yamllint: {},
  checkov: {
    'external-checks-dir': 'external checks load Python code',
    'external-checks-git': 'external checks are fetched from the network',
    'download-external-modules': 'modules are fetched from the network',
    'bc-api-key': 'the platform API key is a secret, and the scan stays offline',
    'prisma-api-url': 'the scan stays offline',
  },
};

/** yamllint's own configurations: `extends` names one of these, never a file. */
const YAMLLINT_BASES = ['default', 'relaxed'];

/** Why the text is not a configuration the tool may take, or null. */
export function configProblem(tool: Tool, text: string): string | null {
  if (!text.trim()) return null;
  let value: unknown;
  try {
    value = parse(text);
  } catch (err) {
    return `Not valid YAML: ${(err as Error).message.split('\n')[0]}`;
  }
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object' || Array.isArray(value)) return `The ${tool} configuration must be a YAML mapping of its options.`;
  const mapping = value as Record<string, unknown>;
  for (const [key, why] of Object.entries(REFUSED_KEYS[tool])) {
    if (key in mapping) return `"${key}" is not accepted: ${why}.`;
  }
  if (tool === 'yamllint' && 'extends' in mapping && !YAMLLINT_BASES.includes(String(mapping.extends))) {
    return `"extends" may name only yamllint's own configurations (${YAMLLINT_BASES.join(', ')}).`;
  }
  return null;
}

/** Whether the text sets anything (blank or comments alone leave the tool's defaults, and are given to it as no file). */
export function setsOptions(text: string): boolean {
  try {
    return (parse(text) ?? null) !== null;
  } catch {
    return true;
  }
}

/** Part of the scan cache's key: the same text scans alike. */
export const configDigest = (text: string): string => createHash('sha256').update(text).digest('hex');
