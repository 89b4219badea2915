import { objectsWithRole } from '../../api/access.ts';
import { boolean, choice, integer, ref, text } from '../../api/fields.ts';
import { joinTable, reverse } from '../../api/relations.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { WEBHOOK_SERVICES } from '../../resources/webhooks/webhook-fields.ts';
import { defineRunResource } from '../../runs/run-resource.ts';
import { mayRelaunchWorkflow } from './relaunch.ts';
import { pythonJson } from '../../api/python-json.ts';

const readOnly = { readOnly: true } as const;

/** Workflow jobs: runs of a workflow's graph (or of a sliced job template), kept in unified_jobs, read through the workflow_jobs view. */
export const workflowJobs = defineRunResource({
  name: 'workflow_job',
  label: 'Workflow Job List',
  description: 'Runs of workflows: each node started as its parents ended, and how the whole ended.',
  fields: {
    workflow_job_template: ref('workflow_job_template', readOnly),
    extra_vars: text({ readOnly: true, filterable: false }),
    allow_simultaneous: boolean(readOnly),
    job_template: ref('job_template', { readOnly: true, helpText: 'If automatically created for a sliced job run, the job template the workflow job was created from.' }),
    is_sliced_job: boolean(readOnly),
    is_bulk_job: boolean(readOnly),
    inventory: ref('inventory', readOnly),
    limit: text(readOnly),
    scm_branch: text(readOnly),
    job_tags: text(readOnly),
    skip_tags: text(readOnly),
    job_slice_count: integer(readOnly),
    webhook_service: choice(WEBHOOK_SERVICES, { readOnly: true, helpText: 'Service that webhook requests will be accepted from' }),
    webhook_credential: ref('credential', { readOnly: true, helpText: 'Personal Access Token for posting back the status to the service API' }),
    webhook_guid: text({ readOnly: true, helpText: 'Unique identifier of the event that triggered this webhook' }),
  },
  // Sliced jobs have no workflow template: their job template decides who sees them.
  owner: { contentType: 'workflow_job_template', column: 'workflow_job_template_id' },
  cancelRole: 'admin_role',
  actions: { relaunch: mayRelaunchWorkflow },
  template: { plural: 'workflow_job_templates', column: 'workflow_job_template_id' },
  related: {
    workflow_nodes: reverse('workflow_job_node', 'workflow_job_nodes', 'workflow_job_id'),
    labels: { ...joinTable('label', 'workflow_job_labels', 'workflow_job_id', 'label_id'), attachable: false },
  },
  decorate: (row, out) => {
    out.related = { ...(out.related as object), relaunch: `/api/v2/workflow_jobs/${row.id}/relaunch/`, ...(row.job_template_id && { job_template: `/api/v2/job_templates/${row.job_template_id}/` }) };
    if (row.is_sliced_job) out.unified_job_template = row.job_template_id;
    const hidden = Object.keys(row.survey_passwords ?? {});
    if (!hidden.length) return;
    const vars = parseVariables(row.extra_vars);
    for (const name of hidden) if (name in vars) vars[name] = '$encrypted$';
    out.extra_vars = pythonJson(vars);
  },
});

// A sliced job's workflow job belongs to its job template: readers of either see it. A bulk job
// (docs/bulk.md) has no template: its organization's admins see it, and its creator (run_viewers).
const ownVisible = workflowJobs.access.visible;
workflowJobs.access = {
  ...workflowJobs.access,
  visible: (ctx, alias, params) => {
    const own = ownVisible(ctx, alias, params);
    if (own === null) return null;
    const user = params.add(ctx.user?.id ?? 0);
    return `(${own} OR ${alias}.job_template_id IN (${objectsWithRole('job_template', ['read_role'], user)})`
      + ` OR (${alias}.is_bulk_job AND ${alias}.organization_id IN (${objectsWithRole('organization', ['admin_role'], user)})))`;
  },
};
