/**
 * Job slicing (AWX's job_slice_count): a job template launched with more than one slice makes a
 * workflow job (is_sliced_job) with one node per slice; each node's job runs against every
 * slice_count-th host of the inventory, starting at its slice number.
 */
import type { Queryable, Row } from '../../db/database.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import type { Launcher } from '../../runs/launch.ts';
import { insertRun, queueRun } from '../../runs/lifecycle.ts';
import { WORKFLOW_JOB } from '../workflow-job/workflow-job-kind-ref.ts';
import { JOB } from './create-job.ts';
import { jobTemplateLauncher } from './launch.ts';
import { asks } from '../../runs/prompts.ts';
import { JOB_TEMPLATE_PROMPTS } from './prompts.ts';

/** How many slices a launch makes: the (prompted) slice count, at most one per enabled host of the inventory. */
export async function sliceCount(tx: Queryable, template: JobTemplateRow, input: Record<string, unknown>): Promise<number> {
  const prompt = (field: string) => asks(template, JOB_TEMPLATE_PROMPTS.find((p) => p.field === field)!) && Number.isInteger(input[field]);
  const prompted = prompt('job_slice_count') ? (input.job_slice_count as number) : template.job_slice_count;
  if (prompted <= 1) return 1;
  const inventory = prompt('inventory') ? (input.inventory as number) : template.inventory_id;
  if (!inventory) return 1;
  const [{ hosts }] = await tx.query<{ hosts: number }>(
    `SELECT count(*)::int AS hosts FROM hosts h WHERE h.enabled AND (h.inventory_id = $1 OR h.id IN (SELECT host_id FROM smart_inventory_memberships WHERE inventory_id = $1))`,
    [inventory],
  );
  return Math.min(prompted, hosts);
}

/**
 * The sliced launch: the job a plain launch would make (the caller's rights, prompts, survey and
 * passwords checked as for any launch), made once per slice under one workflow job.
 */
export const slicedJobLauncher: Launcher<{ body: unknown; slices: number }, JobTemplateRow> = {
  kind: WORKFLOW_JOB,
  async plan(tx, ctx, template, { body, slices }) {
    const job = await jobTemplateLauncher.plan(tx, ctx, template, body);
    const t = template as JobTemplateRow & Row;
    return {
      ignored: job.ignored,
      values: {
        name: t.name, description: t.description, unified_job_template_id: t.id, job_template_id: t.id, is_sliced_job: true,
        organization_id: t.organization_id, launch_type: 'manual', inventory_id: job.values.inventory_id, job_slice_count: slices,
        extra_vars: job.values.extra_vars, survey_passwords: job.values.survey_passwords, allow_simultaneous: true, task_impact: 0,
      },
      link: async (q, workflowJob) => {
        for (let number = 1; number <= slices; number++) {
          const run = await insertRun(q, ctx, JOB, { ...job.values, launch_type: 'workflow', job_slice_number: number, job_slice_count: slices });
          await queueRun(q, JOB, run, job.link && ((created) => job.link!(q, created)));
          await q.query(
            `INSERT INTO workflow_job_nodes (workflow_job_id, unified_job_template_id, job_id, identifier, job_slice_number, job_slice_count, created_by_id, modified_by_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
            [workflowJob.id, t.id, run.id, `slice-${number}`, number, slices, workflowJob.created_by_id],
          );
        }
      },
    };
  },
};
