/**
 * What scanners are made of (docs/scanners.md): the tools, the one severity scale their findings
 * are mapped to, what each tool can scan, and whether this node has it.
 */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

export const TOOLS = ['ansible-lint', 'yamllint', 'checkov'] as const;
export type Tool = (typeof TOOLS)[number];

/** Lowest first: a threshold counts the findings at or above it. */
export const SEVERITIES = ['info', 'low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const severityRank = (severity: string): number => SEVERITIES.indexOf(severity as Severity);

/** What a scanner may gate: a job launched from its template, a job a workflow node launched, an ad hoc command. */
export const SCAN_TARGETS = ['job_template', 'workflow_job_template_node', 'ad_hoc_command'] as const;
export type ScanTarget = (typeof SCAN_TARGETS)[number];

/** Only ansible-lint reads a task: an ad hoc command is linted as a play of one task; the others read files it does not have. */
export const TARGETS_OF: Record<Tool, readonly ScanTarget[]> = {
  'ansible-lint': SCAN_TARGETS,
  yamllint: ['job_template', 'workflow_job_template_node'],
  checkov: ['job_template', 'workflow_job_template_node'],
};

export const ENFORCEMENTS = ['warn', 'enforce'] as const;

/** Where each tool explains its rules, for findings whose tool gives no link of its own. */
export const RULE_DOCS: Record<Tool, (rule: string) => string> = {
  'ansible-lint': (rule) => `https://ansible-lint.readthedocs.io/rules/${rule.replace(/\[.*$/, '')}/`,
  yamllint: (rule) => `https://yamllint.readthedocs.io/en/stable/rules.html#module-yamllint.rules.${rule.replace(/-/g, '_')}`,
  checkov: () => 'https://www.checkov.io/5.Policy%20Index/all.html',
};

/** The tool's program found on the service's PATH, or null. */
export function toolPath(tool: Tool): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, tool);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

export interface ToolAvailability {
  available: boolean;
  path: string | null;
  install: string;
}

const INSTALL: Record<Tool, string> = {
  'ansible-lint': 'apt-get install ansible-lint (npm run setup installs it)',
  yamllint: 'apt-get install yamllint (npm run setup installs it)',
  checkov: 'pip install checkov (optional: used when it is on the PATH)',
};

/** Every tool and whether this node can run it: OPTIONS shows it, and a launch scanning with a missing tool counts as a tool error. */
export function toolAvailability(): Record<Tool, ToolAvailability> {
  const out = {} as Record<Tool, ToolAvailability>;
  for (const tool of TOOLS) {
    const found = toolPath(tool);
    out[tool] = { available: found !== null, path: found, install: INSTALL[tool] };
  }
  return out;
}
