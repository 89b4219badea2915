import { boolean, integer, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import type { JobHostSummaryRow } from '../../db/tables.ts';
import { jobs } from './job.resource.ts';

interface JobSummaryExtra {
  id: number;
  elapsed: number | string | null;
  template_id: number | null;
  template_name: string | null;
}

/** Per-host results of a job (from playbook_on_stats), listed under their job and host. */
export const jobHostSummaries = defineResource<JobHostSummaryRow>({
  name: 'job_host_summary',
  plural: 'job_host_summaries',
  table: 'job_host_summaries',
  label: 'Job Host Summary List',
  topLevel: false,
  untracked: true,
  operations: { create: false, update: false, delete: false },
  ordering: 'host_name',
  fields: {
    job: ref('job', { readOnly: true }),
    host: ref('host', { readOnly: true }),
    host_name: text({ readOnly: true }),
    changed: integer({ readOnly: true }),
    dark: integer({ readOnly: true }),
    failures: integer({ readOnly: true }),
    ignored: integer({ readOnly: true }),
    ok: integer({ readOnly: true }),
    processed: integer({ readOnly: true }),
    rescued: integer({ readOnly: true }),
    skipped: integer({ readOnly: true }),
    failed: boolean({ readOnly: true }),
  },
  summaryColumns: ['id', 'host_name', 'failed'],
  // As AWX, the job's summary also names its template.
  prepare: async (db, rows) => {
    const ids = [...new Set(rows.map((r) => r.job_id))];
    const jobs = await db.query<JobSummaryExtra>(
      `SELECT j.id, j.elapsed, t.id AS template_id, t.name AS template_name
       FROM unified_jobs j LEFT JOIN job_templates t ON t.id = j.job_template_id WHERE j.id = ANY($1::integer[])`,
      [ids],
    );
    return new Map(jobs.map((j) => [j.id, j]));
  },
  decorate: (row, out, prepared) => {
    const job = (prepared as Map<number, JobSummaryExtra> | undefined)?.get(row.job_id);
    const summary = (out.summary_fields as Record<string, Record<string, unknown>>).job;
    if (!job || !summary) return;
    Object.assign(summary, { elapsed: Number(job.elapsed ?? 0), type: 'job' });
    if (job.template_id !== null) Object.assign(summary, { job_template_id: job.template_id, job_template_name: job.template_name });
  },
  // Visible to whoever sees the job.
  access: {
    visible: (ctx, alias, params) => {
      const jobVisible = jobs.access.visible(ctx, 'j', params);
      return jobVisible ? `${alias}.job_id IN (SELECT j.id FROM jobs j WHERE ${jobVisible})` : null;
    },
    canCreate: () => false, canChange: () => false, canDelete: () => false, canAttach: () => false },
});
