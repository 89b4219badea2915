/**
 * Each tool's report read into findings on the one severity scale (docs/scanners.md#severities):
 *
 * - ansible-lint (Code Climate JSON): info → info, minor → low, major → medium, critical → high,
 *   blocker → critical; a rule the configuration lists under warn_list (level "warning") is at most low.
 * - yamllint (parsable lines): error → high, warning → low.
 * - checkov (JSON): its CRITICAL, HIGH, MEDIUM, LOW, INFO; a check without a severity → medium.
 */
import { RULE_DOCS, type Severity, type Tool } from './tools.ts';

export interface Finding {
  rule_id: string;
  severity: Severity;
  file_path: string;
  line: number | null;
  message: string;
  url: string;
}

/** The tool's output could not be read: a tool error. */
export class UnreadableReport extends Error {}

const CODE_CLIMATE: Record<string, Severity> = { info: 'info', minor: 'low', major: 'medium', critical: 'high', blocker: 'critical' };
const YAMLLINT: Record<string, Severity> = { error: 'high', warning: 'low' };
const CHECKOV: Record<string, Severity> = { critical: 'critical', high: 'high', medium: 'medium', low: 'low', info: 'info' };

/** A path as the project names it: relative to the scanned directory. */
function projectPath(file: string, scanned: string): string {
  const prefix = scanned.endsWith('/') ? scanned : `${scanned}/`;
  const relative = file.startsWith(prefix) ? file.slice(prefix.length) : file;
  return relative.replace(/^\.\//, '').replace(/^\/+/, '');
}

const lineOf = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null);

function parseJson(stdout: string): unknown {
  try {
    return JSON.parse(stdout.trim() || 'null');
  } catch {
    throw new UnreadableReport(`unreadable report: ${stdout.trim().slice(0, 200) || '(empty)'}`);
  }
}

function ansibleLint(stdout: string, scanned: string): Finding[] {
  const report = parseJson(stdout);
  if (!Array.isArray(report)) throw new UnreadableReport('unreadable report: expected a list of issues');
  return report.map((issue: Record<string, any>) => {
    const mapped = CODE_CLIMATE[String(issue.severity)] ?? 'medium';
    const severity = issue.level === 'warning' && mapped !== 'info' ? 'low' : mapped;
    const rule = String(issue.check_name ?? 'unknown');
    const location = issue.location ?? {};
    const body = typeof issue.content?.body === 'string' ? `: ${issue.content.body}` : '';
    return {
      rule_id: rule,
      severity,
      file_path: projectPath(String(location.path ?? ''), scanned),
      line: lineOf(location.lines?.begin) ?? lineOf(location.positions?.begin?.line),
      message: `${String(issue.description ?? '')}${body}`.slice(0, 2000),
      url: typeof issue.url === 'string' && issue.url ? issue.url : RULE_DOCS['ansible-lint'](rule),
    };
  });
}

const YAMLLINT_LINE = /^(.*?):(\d+):(\d+): \[(error|warning)\] (.*?)(?: \(([\w-]+)\))?$/;

function yamllint(stdout: string, scanned: string): Finding[] {
  const findings: Finding[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.trim()) continue;
    const match = YAMLLINT_LINE.exec(line);
    if (!match) throw new UnreadableReport(`unreadable report line: ${line.slice(0, 200)}`);
    const rule = match[6] ?? 'syntax';
    findings.push({
      rule_id: rule, severity: YAMLLINT[match[4]], file_path: projectPath(match[1], scanned), line: Number(match[2]),
      message: match[5].slice(0, 2000), url: RULE_DOCS.yamllint(rule),
    });
  }
  return findings;
}

function checkov(stdout: string, scanned: string): Finding[] {
  const report = parseJson(stdout);
  // One report per framework it ran, or one alone; an empty scan may answer a summary without results.
  const reports = (Array.isArray(report) ? report : [report]) as Record<string, any>[];
  const findings: Finding[] = [];
  for (const part of reports) {
    for (const check of part?.results?.failed_checks ?? []) {
      findings.push({
        rule_id: String(check.check_id ?? 'unknown'),
        severity: CHECKOV[String(check.severity ?? '').toLowerCase()] ?? 'medium',
        file_path: projectPath(String(check.file_path ?? ''), scanned),
        line: lineOf(check.file_line_range?.[0]),
        message: String(check.check_name ?? '').slice(0, 2000),
        url: typeof check.guideline === 'string' && check.guideline ? check.guideline : RULE_DOCS.checkov(''),
      });
    }
  }
  return findings;
}

export const READ_REPORT: Record<Tool, (stdout: string, scanned: string) => Finding[]> = { 'ansible-lint': ansibleLint, yamllint, checkov };
