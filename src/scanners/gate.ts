/**
 * The scanner gate (docs/scanners.md#at-launch): after the policy gate, with SCANNER_ENABLED, every
 * enabled scanner of the launch's organization (and every global one) that applies to what is
 * launched reads its files. Findings at or above a scanner's threshold block the launch (enforce)
 * or are kept in the run's explanation (warn); a scan that times out or fails follows
 * SCANNER_FAIL_MODE. A scan not cached yet is done outside the launch's transaction when the launch
 * can step out of it (GateInput.mayStepOut), else inside it.
 */
import { actorId } from '../api/context.ts';
import type { Queryable } from '../db/database.ts';
import type { Gate, GateInput, Verdict } from '../runs/gates.ts';
import { configDigest } from './config.ts';
import type { Finding } from './findings.ts';
import { cacheScan, cachedScan, recordScanResults, type ScanResultRecord } from './results.ts';
import { runTool, type ScanOutcome } from './run-tool.ts';
import { scanSubject, type ScanSubject } from './subject.ts';
import { severityRank, TARGETS_OF, type ScanTarget, type Tool } from './tools.ts';

export const BLOCKED = 'Scanner blocked launch.';

interface ApplicableScanner {
  id: number;
  name: string;
  tool: Tool;
  config: string;
  severity_threshold: string;
  enforcement: 'warn' | 'enforce';
  timeout: number;
}

/** What a launch is to scanners: a job from its template or from a workflow node, or an ad hoc command; null for the rest. */
export function scanTargetOf(launch: Pick<GateInput, 'kind' | 'run'>): ScanTarget | null {
  if (launch.kind === 'ad_hoc_command') return 'ad_hoc_command';
  if (launch.kind !== 'job') return null;
  return launch.run.launch_type === 'workflow' ? 'workflow_job_template_node' : 'job_template';
}

type Scanned = ScanOutcome & { cached: boolean };

const scratchKey = (scanner: ApplicableScanner) => `scan:${scanner.id}:${configDigest(scanner.config)}`;

/** The scans of those scanners whose result is known: cached, or left by this launch's preparation. */
async function knownScans(tx: Queryable, launch: GateInput, scanners: ApplicableScanner[], subject: Exclude<ScanSubject, { problem: string }>): Promise<Map<number, Scanned>> {
  const known = new Map<number, Scanned>();
  for (const scanner of scanners) {
    const prepared = launch.scratch.get(scratchKey(scanner)) as ScanOutcome | undefined;
    if (prepared) {
      known.set(scanner.id, { ...prepared, cached: false });
      continue;
    }
    const cached = subject.key ? await cachedScan(tx, scanner.tool, configDigest(scanner.config), subject.key) : null;
    if (cached) known.set(scanner.id, { status: 'ok', findings: cached.findings, durationMs: 0, cached: true });
  }
  return known;
}

/** Scans and keeps what it found: in the cache (a finished scan of a revision), and for the launch's second try. */
async function scan(launch: GateInput, scanner: ApplicableScanner, subject: Exclude<ScanSubject, { problem: string }>, cache: (q: (tx: Queryable) => Promise<void>) => Promise<void>): Promise<ScanOutcome> {
  const outcome = await runTool(launch.ctx.service, scanner, subject.files);
  const key = subject.key;
  if (outcome.status === 'ok' && key) await cache((q) => cacheScan(q, scanner.tool, configDigest(scanner.config), key, { findings: outcome.findings, duration_ms: outcome.durationMs }));
  launch.scratch.set(scratchKey(scanner), outcome);
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

interface Judged {
  record: ScanResultRecord;
  decision: 'allow' | 'warn' | 'deny';
  message: string;
  blocking: (Finding & { scanner: string; tool: string })[];
}

function judge(launch: GateInput, scanner: ApplicableScanner, outcome: Scanned, subject: ScanSubject, failMode: unknown): Judged {
  const { run } = launch;
  const base = {
    scanner_id: scanner.id, scanner_name: scanner.name, tool: scanner.tool, organization_id: run.organization_id, unified_job_id: run.id,
    unified_job_template_id: run.unified_job_template_id, project_id: 'problem' in subject ? run.project_id : subject.project_id,
    scm_revision: 'problem' in subject ? '' : subject.scm_revision, playbook: 'problem' in subject ? String(run.playbook ?? '') : subject.playbook,
    severity_threshold: scanner.severity_threshold, enforcement: scanner.enforcement, cached: outcome.cached, duration_ms: outcome.durationMs, user_id: actorId(launch.ctx),
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

/** The blocking findings a refusal shows (the console's launch dialog lists them). */
const MAX_SHOWN_FINDINGS = 100;

async function check(tx: Queryable, launch: GateInput): Promise<Verdict> {
  const settings = launch.ctx.service.settings;
  if (!settings.get('SCANNER_ENABLED')) return { decision: 'allow' };
  const target = scanTargetOf(launch);
  if (!target) return { decision: 'allow' };
  const tools = Object.entries(TARGETS_OF).filter(([, targets]) => targets.includes(target)).map(([tool]) => tool);
  const scanners = await tx.query<ApplicableScanner>(
    `SELECT id, name, tool, config, severity_threshold, enforcement, timeout FROM scanners
     WHERE enabled AND (organization_id IS NULL OR organization_id = $1) AND tool = ANY($3::text[])
       AND (applies_to = '[]'::jsonb OR applies_to @> jsonb_build_array($2::text)) ORDER BY id`,
    [launch.run.organization_id, target, tools],
  );
  if (!scanners.length) return { decision: 'allow' };

  const subject = await scanSubject(tx, launch.ctx.service, launch.run, target);
  const known = 'problem' in subject ? new Map<number, Scanned>() : await knownScans(tx, launch, scanners, subject);
  const missing = scanners.filter((s) => !known.has(s.id));
  if (!('problem' in subject) && missing.length) {
    if (launch.mayStepOut) {
      return { decision: 'prepare', prepare: async (db) => void (await Promise.all(missing.map((s) => scan(launch, s, subject, (write) => db.transaction(write))))) };
    }
    for (const scanner of missing) known.set(scanner.id, { ...(await scan(launch, scanner, subject, (write) => write(tx))), cached: false });
  }
  const outcomeOf = (scanner: ApplicableScanner): Scanned =>
    known.get(scanner.id) ?? { status: 'error', message: 'problem' in subject ? subject.problem : 'not scanned', durationMs: 0, cached: false };
  const failMode = settings.get('SCANNER_FAIL_MODE');
  const judged = scanners.map((scanner) => judge(launch, scanner, outcomeOf(scanner), subject, failMode));
  const record = (q: Queryable) => recordScanResults(q, judged.map((j) => j.record));
  const reasons = judged.filter((j) => j.decision === 'deny').map((j) => j.message);
  if (reasons.length) {
    const findings = judged.flatMap((j) => (j.decision === 'deny' ? j.blocking : [])).slice(0, MAX_SHOWN_FINDINGS);
    return { decision: 'deny', status: 403, message: BLOCKED, body: { detail: BLOCKED, reasons, findings }, record };
  }
  const warnings = judged.filter((j) => j.decision === 'warn').map((j) => `Scanner warning: ${j.message}`);
  if (warnings.length) return { decision: 'warn', message: warnings.join('\n'), record };
  return { decision: 'allow', record };
}

export const scannerGate: Gate = { name: 'scanner', check };
