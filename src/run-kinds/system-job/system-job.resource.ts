import { choice, ref, text } from '../../api/fields.ts';
import { defineRunResource } from '../../runs/run-resource.ts';
import { SYSTEM_JOB_TYPES, superuserOrAuditorList } from '../../resources/system-job-templates/system-job-options.ts';

/** System jobs: runs of system job templates (AWX's SystemJob); only superusers and system auditors see them. */
export const systemJobs = defineRunResource({
  name: 'system_job',
  label: 'System Job List',
  description: 'Runs of the service maintenance templates.',
  fields: {
    system_job_template: ref('system_job_template', { readOnly: true, column: 'unified_job_template_id' }),
    job_type: choice(SYSTEM_JOB_TYPES, { readOnly: true }),
    extra_vars: text({ readOnly: true }),
  },
  // No roles on system job templates: only those who see everything see these runs.
  owner: { contentType: 'system_job_template', column: 'unified_job_template_id' },
  listRefusal: superuserOrAuditorList,
  cancelRole: 'admin_role',
  template: { plural: 'system_job_templates', column: 'unified_job_template_id' },
  decorate: (row, out) => {
    out.result_stdout = '';
  },
});
