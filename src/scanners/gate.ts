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
import { applicableScanners, cachedOutcome, judge, scanAndCache, type ApplicableScanner, type Scanned } from './judge.ts';
import { recordScanResults } from './results.ts';
import type { ScanOutcome } from './run-tool.ts';
import { scanSubject, type ScanSubject } from './subject.ts';
import type { ScanTarget } from './tools.ts';

export const BLOCKED = 'Scanner blocked launch.';

/** What a launch is to scanners: a job from its template or from a workflow node, or an ad hoc command; null for the rest. */
export function scanTargetOf(launch: Pick<GateInput, 'kind' | 'run'>): ScanTarget | null {
  if (launch.kind === 'ad_hoc_command') return 'ad_hoc_command';
  if (launch.kind !== 'job') return null;
  return launch.run.launch_type === 'workflow' ? 'workflow_job_template_node' : 'job_template';
}

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
    const cached = await cachedOutcome(tx, scanner, subject);
    if (cached) known.set(scanner.id, cached);
  }
  return known;
}

/** Scans and keeps what it found for the launch's second try. */
async function scan(launch: GateInput, scanner: ApplicableScanner, subject: Exclude<ScanSubject, { problem: string }>, cache: (q: (tx: Queryable) => Promise<void>) => Promise<void>): Promise<ScanOutcome> {
  const outcome = await launch.tracing.inSpan('scan', { 'drover.scanner.id': scanner.id, 'drover.scanner.tool': scanner.tool }, () => scanAndCache(launch.ctx.service, scanner, subject, cache));
  launch.scratch.set(scratchKey(scanner), outcome);
  return outcome;
}

/** The blocking findings a refusal shows (the console's launch dialog lists them). */
const MAX_SHOWN_FINDINGS = 100;

async function check(tx: Queryable, launch: GateInput): Promise<Verdict> {
  const settings = launch.ctx.service.settings;
  if (!settings.get('SCANNER_ENABLED')) return { decision: 'allow' };
  const target = scanTargetOf(launch);
  if (!target) return { decision: 'allow' };
  const scanners = await applicableScanners(tx, launch.run, target);
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
  const judged = scanners.map((scanner) => judge({ run: launch.run, userId: actorId(launch.ctx) }, scanner, outcomeOf(scanner), subject, failMode));
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
