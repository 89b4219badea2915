/**
 * A job's meta variables (AWX's Job.awx_meta_vars, awx/main/models/jobs.py): every run's, then its
 * project's revision and branch, the job's own branch when it has one, its template, and the node
 * running it, each under the awx_ and tower_ prefixes.
 */
import type { Queryable } from '../../db/database.ts';
import type { UnifiedJobRow } from '../../db/tables.ts';
import { prefixed, runMetaVars } from '../../runs/meta-vars.ts';

export async function jobMetaVars(db: Queryable, job: UnifiedJobRow): Promise<Record<string, unknown>> {
  const base = await runMetaVars(db, job);
  const [found] = await db.query<{ project_id: number | null; scm_revision: string | null; scm_branch: string | null; template_id: number | null; template_name: string | null }>(
    `SELECT p.id AS project_id, p.scm_revision, p.scm_branch, t.id AS template_id, t.name AS template_name
     FROM (SELECT 1) one LEFT JOIN projects p ON p.id = $1 LEFT JOIN job_templates t ON t.id = $2`,
    [job.project_id, job.job_template_id],
  );
  const vars: Record<string, unknown> = { ...base };
  // The project's current revision and branch, as AWX reads them (self.project), not the job's.
  if (found?.project_id) Object.assign(vars, { project_revision: found.scm_revision, project_scm_branch: found.scm_branch });
  if (job.scm_branch) vars.job_scm_branch = job.scm_branch;
  if (found?.template_id) Object.assign(vars, { job_template_id: found.template_id, job_template_name: found.template_name });
  if (job.execution_node) vars.execution_node = job.execution_node;
  return prefixed(vars);
}
