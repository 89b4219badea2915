/**
 * A job's second look (docs/scanners.md#when-the-revision-changes-before-the-run): when the files a
 * starting job copied are of another revision than its launch's scans read (its project was updated
 * on launch in between), the scanners that read it at launch read the new revision before
 * ansible-playbook starts. An enforcing scanner's findings then fail the job; a warning is added to
 * its launch warnings.
 */
import type { ProjectRow, UnifiedJobRow } from '../db/tables.ts';
import type { RunContext } from '../runs/run-kind.ts';
import { explanationAfterWarnings } from '../runs/lifecycle.ts';
import { applicableScanners, cachedOutcome, judge, scanAndCache, type Scanned } from './judge.ts';
import { recordScanResults } from './results.ts';
import { copiedSubject } from './subject.ts';

type Project = Pick<ProjectRow, 'id' | 'scm_type'>;

/** Why the job may not run, or null (it may, perhaps with a warning added). */
export async function scanAtRunStart(run: RunContext, job: UnifiedJobRow, project: Project, copy: { dir: string; revision: string; requirements: string }): Promise<string | null> {
  const settings = run.services.settings;
  if (!settings.get('SCANNER_ENABLED')) return null;
  const stale = await run.db.query<{ scanner_id: number }>(
    'SELECT DISTINCT scanner_id FROM scan_results WHERE unified_job_id = $1 AND scanner_id IS NOT NULL AND scm_revision <> $2', [job.id, copy.revision],
  );
  if (!stale.length) return null;
  const ids = new Set(stale.map((s) => s.scanner_id));
  const target = job.launch_type === 'workflow' ? 'workflow_job_template_node' : 'job_template';
  const scanners = (await applicableScanners(run.db, job, target)).filter((s) => ids.has(s.id));
  if (!scanners.length) return null;
  await run.output(`The project is at revision ${copy.revision}, not the one scanned at launch: scanning again.`);
  const subject = copiedSubject(project, copy, String(job.playbook));
  if ('problem' in subject) return subject.problem;
  const scanned = await Promise.all(scanners.map(async (scanner): Promise<Scanned> => {
    const cached = await cachedOutcome(run.db, scanner, subject);
    if (cached) return cached;
    return { ...(await scanAndCache(run.services, scanner, subject, (write) => run.db.transaction(write))), cached: false };
  }));
  const judged = scanners.map((scanner, i) => judge({ run: job, userId: job.created_by_id }, scanner, scanned[i], subject, settings.get('SCANNER_FAIL_MODE')));
  await recordScanResults(run.db, judged.map((j) => j.record));
  const reasons = judged.filter((j) => j.decision === 'deny').map((j) => j.message);
  if (reasons.length) return `Scanner blocked the run at revision ${copy.revision}: ${reasons.join('; ')}`;
  const warnings = judged.filter((j) => j.decision === 'warn').map((j) => `Scanner warning: ${j.message}`).join('\n');
  if (warnings) {
    await run.db.query(
      'UPDATE unified_jobs SET launch_warnings = $2, job_explanation = $2 WHERE id = $1',
      [job.id, explanationAfterWarnings(job.launch_warnings, warnings)],
    );
  }
  return null;
}
