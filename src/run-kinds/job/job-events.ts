import type { Queryable, Row } from '../../db/database.ts';
import { runSummary, type EventRun, type EventShape } from '../../runs/run-events.ts';

/** How a job's events summarize it: its own columns, elapsed, and its template (AWX's JobEventSerializer). */
async function jobSummary(db: Queryable, run: EventRun): Promise<Row> {
  const summary: Row = { ...runSummary(run), elapsed: run.elapsed === null || run.elapsed === undefined ? 0 : Number(run.elapsed), type: 'job' };
  if (run.canceled_on) summary.canceled_on = run.canceled_on;
  if (run.job_template_id) {
    const [template] = await db.query<{ id: number; name: string }>('SELECT id, name FROM job_templates WHERE id = $1', [run.job_template_id]);
    if (template) Object.assign(summary, { job_template_id: template.id, job_template_name: template.name });
  }
  return summary;
}

/** A job's events: playbook events with their hosts and children, each on its own at /job_events/{id}/. */
export const JOB_EVENTS: EventShape = {
  detailPath: '/api/v2/job_events/',
  fields: ['job', 'event', 'counter', 'event_display', 'event_data', 'event_level', 'failed', 'changed', 'uuid', 'parent_uuid', 'host', 'host_name',
    'playbook', 'play', 'task', 'role', 'stdout', 'start_line', 'end_line', 'verbosity'],
  playbook: true,
  host: true,
  children: true,
  summary: jobSummary,
};
