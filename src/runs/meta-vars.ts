/**
 * The variables AWX gives every job and ad hoc command at run time (UnifiedJob.awx_meta_vars,
 * awx/main/models/unified_jobs.py), under each of its prefixes (JOB_VARIABLE_PREFIXES: awx_,
 * tower_). They are written into the run's extra vars file over the run's own extra vars, never
 * stored in its extra_vars: a launch's awx_job_id cannot pass for the real one.
 */
import type { Queryable } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';

export const JOB_VARIABLE_PREFIXES = ['awx', 'tower'] as const;

/** Each name under every prefix ({job_id: 7} gives awx_job_id and tower_job_id), in AWX's order. */
export function prefixed(vars: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const prefix of JOB_VARIABLE_PREFIXES) for (const [name, value] of Object.entries(vars)) out[`${prefix}_${name}`] = value;
  return out;
}

interface Surroundings {
  workflow_job_id: number | null;
  workflow_job_name: string | null;
  workflow_job_launch_type: string | null;
  parent_schedule_id: number | null;
  parent_schedule_name: string | null;
  schedule_id: number | null;
  schedule_name: string | null;
  user_id: number | null;
  username: string | null;
  email: string | null;
  first_name: string | null;
  last_name: string | null;
  inventory_id: number | null;
  inventory_name: string | null;
}

/**
 * What every run kind's meta variables say, as AWX: the run's id and launch type; the workflow job
 * a workflow node's run belongs to (and the schedule that launched that workflow job); the schedule
 * that launched the run, only when no user did; the user who launched it; its inventory. Each group
 * is left out when the run has none.
 */
export async function runMetaVars(db: Queryable, run: Pick<UnifiedJobRow, 'id' | 'launch_type'>): Promise<Record<string, unknown>> {
  const [found] = await db.query<Surroundings>(
    `SELECT w.id AS workflow_job_id, w.name AS workflow_job_name, w.launch_type AS workflow_job_launch_type,
            ws.id AS parent_schedule_id, ws.name AS parent_schedule_name, s.id AS schedule_id, s.name AS schedule_name,
            u.id AS user_id, u.username, u.email, u.first_name, u.last_name, i.id AS inventory_id, i.name AS inventory_name
     FROM unified_jobs r
     LEFT JOIN workflow_job_nodes n ON r.launch_type = 'workflow' AND n.job_id = r.id
     LEFT JOIN unified_jobs w ON w.id = n.workflow_job_id
     LEFT JOIN schedules ws ON ws.id = w.schedule_id
     LEFT JOIN schedules s ON s.id = r.schedule_id
     LEFT JOIN users u ON u.id = r.created_by_id
     LEFT JOIN inventories i ON i.id = r.inventory_id
     WHERE r.id = $1`,
    [run.id],
  );
  const vars: Record<string, unknown> = { job_id: run.id, job_launch_type: run.launch_type };
  if (found?.workflow_job_id) {
    Object.assign(vars, { workflow_job_id: found.workflow_job_id, workflow_job_name: found.workflow_job_name, workflow_job_launch_type: found.workflow_job_launch_type });
    if (found.parent_schedule_id) Object.assign(vars, { parent_job_schedule_id: found.parent_schedule_id, parent_job_schedule_name: found.parent_schedule_name });
  }
  if (!found?.user_id && found?.schedule_id) Object.assign(vars, { schedule_id: found.schedule_id, schedule_name: found.schedule_name });
  if (found?.user_id) {
    Object.assign(vars, { user_id: found.user_id, user_name: found.username, user_email: found.email, user_first_name: found.first_name, user_last_name: found.last_name });
  }
  if (found?.inventory_id) Object.assign(vars, { inventory_id: found.inventory_id, inventory_name: found.inventory_name });
  return vars;
}
