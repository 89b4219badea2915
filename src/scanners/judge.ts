/** How a scanner's outcome counts (docs/scanners.md#at-launch): what it adds to the result, the decision and its words. */
import type { Services } from '../api/context.ts';
import type { Queryable } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import { configDigest } from './config.ts';
import type { Finding } from './findings.ts';
import { cacheScan, cachedScan, type ScanResultRecord } from './results.ts';
import { runTool, type ScanOutcome } from './run-tool.ts';
import type { ScanSubject } from './subject.ts';
import { severityRank, TARGETS_OF, type ScanTarget, type Tool } from './tools.ts';

export interface ApplicableScanner {
  id: number;
  name: string;
  tool: Tool;
  config: string;
  severity_threshold: string;
  enforcement: 'warn' | 'enforce';
  timeout: number;
}

export type Scanned = ScanOutcome & { cached: boolean };

/** The enabled scanners of the run's organization and the global ones that read this target. */
export function applicableScanners(q: Queryable, run: Pick<UnifiedJobRow, 'organization_id'>, target: ScanTarget): Promise<ApplicableScanner[]> {
  const tools = Object.entries(TARGETS_OF).filter(([, targets]) => targets.includes(target)).map(([tool]) => tool);
  return q.query<ApplicableScanner>(
    `SELECT id, name, tool, config, severity_threshold, enforcement, timeout FROM scanners
     WHERE enabled AND (organization_id IS NULL OR organization_id = $1) AND tool = ANY($3::text[])
       AND (applies_to = '[]'::jsonb OR applies_to @> jsonb_build_array($2::text)) ORDER BY id`,
    [run.organization_id, target, tools],
  );
}

/** What the scan cache holds for this scanner on the subject, as an outcome; null when it holds nothing (or the subject is not cached). */
export async function cachedOutcome(q: Queryable, scanner: ApplicableScanner, subject: Exclude<ScanSubject, { problem: string }>): Promise<Scanned | null> {
  const cached = subject.key ? await cachedScan(q, scanner.tool, configDigest(scanner.config), subject.key) : null;
  return cached && { status: 'ok', findings: cached.findings, durationMs: 0, cached: true };
}

/** Scans, and keeps a finished scan of a revision in the cache. */
export async function scanAndCache(
  services: Pick<Services, 'settings' | 'env'>, scanner: ApplicableScanner, subject: Exclude<ScanSubject, { problem: string }>,
  cache: (write: (q: Queryable) => Promise<void>) => Promise<void>,
): Promise<ScanOutcome> {
  const outcome = await runTool(services, scanner, subject.files);
  const key = subject.key;
  if (outcome.status === 'ok' && key) await cache((q) => cacheScan(q, scanner.tool, configDigest(scanner.config), key, { findings: outcome.findings, duration_ms: outcome.durationMs }));
  return outcome;
}

const where = (finding: Finding) => (finding.file_path ? ` at ${finding.file_path}${finding.line ? `:${finding.line}` : ''}` : '');
const LISTED = 5;

/** "3 findings at or above high: no-changed-when at site.yml:3, ..." */
function describe(blocking: Finding[], threshold: string): string {
  const listed = blocking.slice(0, LISTED).map((f) => `${f.rule_id}${where(f)}`).join(', ');
  const more = blocking.length > LISTED ? ` and ${blocking.length - LISTED} more` : '';
  return `${blocking.length} finding${blocking.length === 1 ? '' : 's'} at or above ${threshold}: ${listed}${more}`;
}

export interface Judged {
  record: ScanResultRecord;
  decision: 'allow' | 'warn' | 'deny';
  message: string;
  blocking: (Finding & { scanner: string; tool: string })[];
}

/** The run scanned (stored at launch, or starting) and who launched it. */
export interface ScannedRun {
  run: UnifiedJobRow;
  userId: number | null;
}

export function judge({ run, userId }: ScannedRun, scanner: ApplicableScanner, outcome: Scanned, subject: ScanSubject, failMode: unknown): Judged {
  const base = {
    scanner_id: scanner.id, scanner_name: scanner.name, tool: scanner.tool, organization_id: run.organization_id, unified_job_id: run.id,
    unified_job_template_id: run.unified_job_template_id, project_id: 'problem' in subject ? run.project_id : subject.project_id,
    scm_revision: 'problem' in subject ? '' : subject.scm_revision, playbook: 'problem' in subject ? String(run.playbook ?? '') : subject.playbook,
    severity_threshold: scanner.severity_threshold, enforcement: scanner.enforcement, cached: outcome.cached, duration_ms: outcome.durationMs, user_id: userId,
  };
  if (outcome.status !== 'ok') {
    const denies = failMode === 'closed' && scanner.enforcement === 'enforce';
    const consequence = denies ? ' (SCANNER_FAIL_MODE is closed)' : failMode === 'closed' ? '; launch allowed (the scanner only warns)' : '; launch allowed (SCANNER_FAIL_MODE is open)';
    const summary = `${outcome.message}${consequence}`;
    return {
      record: { ...base, status: outcome.status, summary, findings: [], finding_count: 0, blocking_count: 0 },
      decision: denies ? 'deny' : 'warn', message: `${scanner.name}: ${summary}`, blocking: [],
    };
  }
  const threshold = severityRank(scanner.severity_threshold);
  const findings = outcome.findings.map((f) => ({ ...f, blocking: severityRank(f.severity) >= threshold }));
  const blocking = findings.filter((f) => f.blocking);
  const status = !blocking.length ? 'ok' : scanner.enforcement === 'enforce' ? 'blocked' : 'warn';
  const summary = blocking.length
    ? describe(blocking, scanner.severity_threshold)
    : `${findings.length ? `${findings.length} finding${findings.length === 1 ? '' : 's'}, none` : 'No findings'} at or above ${scanner.severity_threshold}`;
  return {
    record: { ...base, status, summary, findings, finding_count: findings.length, blocking_count: blocking.length },
    decision: status === 'blocked' ? 'deny' : status === 'warn' ? 'warn' : 'allow',
    message: `${scanner.name}: ${summary}`,
    blocking: blocking.map((f) => ({ ...f, scanner: scanner.name, tool: scanner.tool })),
  };
}

