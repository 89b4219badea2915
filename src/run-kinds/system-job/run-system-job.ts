/** What a system job does: the cleanup its template names, with the days it was given. */
import { cleanupActivityStream } from '../../activity/cleanup.ts';
import { deleteExpiredTokens } from '../../auth/oauth2.ts';
import { deleteExpiredSessions } from '../../auth/sessions.ts';
import type { UnifiedJobRow } from '../../db/tables.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { daysOf } from '../../resources/system-job-templates/system-job-options.ts';
import { cleanupKinds, cleanupRuns } from '../../runs/cleanup-runs.ts';
import type { RunContext, RunOutcome } from '../../runs/run-kind.ts';

/** Days kept when none are given (AWX's management commands: 90 for jobs, 355 for activity). */
const DEFAULT_DAYS: Record<string, number> = { cleanup_jobs: 90, cleanup_activitystream: 355 };

export async function runSystemJob(job: UnifiedJobRow, run: RunContext): Promise<RunOutcome> {
  const vars = parseVariables(job.extra_vars);
  const days = daysOf(vars.days) ?? DEFAULT_DAYS[job.job_type] ?? 0;
  switch (job.job_type) {
    case 'cleanup_jobs':
      for (const k of cleanupKinds(run.services.runKinds.all)) {
        const { deleted, skipped } = await cleanupRuns(run.db, k.kind, days, false);
        await run.output(`${k.label}: ${deleted} deleted, ${skipped} skipped.`);
      }
      return { status: 'successful' };
    case 'cleanup_activitystream':
      await run.output(`Removed ${await cleanupActivityStream(run.db, days)} activity stream entries older than ${days} days.`);
      return { status: 'successful' };
    case 'cleanup_sessions':
      await run.output(`Deleted ${await deleteExpiredSessions(run.db, run.services.settings)} expired sessions.`);
      return { status: 'successful' };
    case 'cleanup_tokens':
      await run.output(`Deleted ${await deleteExpiredTokens(run.db, run.services.settings)} expired tokens.`);
      return { status: 'successful' };
    default:
      return { status: 'failed', explanation: `Unknown system job type "${job.job_type}".` };
  }
}
