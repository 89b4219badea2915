import { boolean, integer, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';

/** Per-host results of a job (from playbook_on_stats), listed under their job and host. */
export const jobHostSummaries = defineResource({
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
  access: { visible: () => null, canCreate: () => false, canChange: () => false, canDelete: () => false, canAttach: () => false },
});
