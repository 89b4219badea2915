import type { Queryable } from '../db/database.ts';

export interface PlaybookOutcome {
  /** How many hosts ended in each state, from the run's stats (null until they are in). */
  host_status_counts: Record<string, number> | null;
  /** How many plays and tasks the playbook started (AWX's playbook_counts). */
  playbook_counts: { play_count: number; task_count: number };
}

/** What a run's page shows of its playbook, the counts taken through the (run, event) index. */
export async function playbookOutcome(db: Queryable, runId: number): Promise<PlaybookOutcome> {
  const [row] = await db.query<{ host_status_counts: Record<string, number> | null; play_count: number; task_count: number }>(
    `SELECT host_status_counts,
            (SELECT count(*) FROM unified_job_events WHERE unified_job_id = $1 AND event = 'playbook_on_play_start')::int AS play_count,
            (SELECT count(*) FROM unified_job_events WHERE unified_job_id = $1 AND event = 'playbook_on_task_start')::int AS task_count
     FROM unified_jobs WHERE id = $1`,
    [runId],
  );
  return { host_status_counts: row?.host_status_counts ?? null, playbook_counts: { play_count: row?.play_count ?? 0, task_count: row?.task_count ?? 0 } };
}
