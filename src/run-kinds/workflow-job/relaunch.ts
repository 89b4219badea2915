/** A relaunch: a new workflow job with the values and graph of the one it repeats (AWX: the same prompts). */
import { hasObjectRole, isSuperuser } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { ApiError, forbidden } from '../../api/errors.ts';
import type { Queryable } from '../../db/database.ts';
import type { Launcher } from '../../runs/launch.ts';
import type { WorkflowJobRow } from '../../db/tables.ts';
import { copyJobGraph } from './graph-copy.ts';
import { WORKFLOW_JOB } from './workflow-job-kind-ref.ts';
import { pythonJson } from '../../api/python-json.ts';

const COPIED: readonly (keyof WorkflowJobRow)[] = [
  'name', 'description', 'unified_job_template_id', 'workflow_job_template_id', 'job_template_id', 'organization_id', 'inventory_id', 'limit',
  'scm_branch', 'job_tags', 'skip_tags', 'allow_simultaneous', 'extra_vars', 'survey_passwords', 'is_sliced_job', 'job_slice_count',
  // A webhook workflow job's relaunch keeps its webhook fields (AWX), so it reports its commit status too.
  'webhook_service', 'webhook_credential_id', 'webhook_guid',
];

/** Who may relaunch: execute_role on the workflow (or on the job template of a sliced job). */
export async function mayRelaunchWorkflow(ctx: RequestContext, tx: Queryable, run: Pick<WorkflowJobRow, 'workflow_job_template_id' | 'job_template_id'>): Promise<boolean> {
  if (isSuperuser(ctx)) return true;
  if (run.workflow_job_template_id) return hasObjectRole(ctx, tx, 'workflow_job_template', run.workflow_job_template_id, 'execute_role');
  if (run.job_template_id) return hasObjectRole(ctx, tx, 'job_template', run.job_template_id, 'execute_role');
  return false;
}

export const workflowRelauncher: Launcher<unknown, WorkflowJobRow> = {
  kind: WORKFLOW_JOB,
  async plan(tx, ctx, previous) {
    const run = previous!;
    if (!(await mayRelaunchWorkflow(ctx, tx, run))) throw forbidden();
    if (!run.workflow_job_template_id && !run.is_sliced_job) throw new ApiError(400, { detail: 'Cannot relaunch workflow job whose template was deleted.' });
    const values: Record<string, unknown> = Object.fromEntries(COPIED.map((c) => [c, run[c]]));
    values.extra_vars = typeof run.extra_vars === 'string' ? run.extra_vars : pythonJson(run.extra_vars);
    values.survey_passwords = JSON.stringify(run.survey_passwords ?? {});
    return {
      values: { ...values, launch_type: 'relaunch', task_impact: 0 },
      link: async (q, created) => {
        await copyJobGraph(q, created.id, run.id, created.created_by_id);
        await q.query('INSERT INTO workflow_job_labels (workflow_job_id, label_id) SELECT $1, label_id FROM workflow_job_labels WHERE workflow_job_id = $2', [created.id, run.id]);
      },
    };
  },
};
