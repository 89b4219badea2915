import { boolean, choice, datetime, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { reverse } from '../../api/relations.ts';
import type { Queryable } from '../../db/database.ts';
import type { LabelRow, WorkflowJobTemplateRow } from '../../db/tables.ts';
import { optionField } from '../../ansible/option-values.ts';
import { variablesField } from '../../inventory/variables.ts';
import { objectRoles } from '../../rbac/relations.ts';
import { attachedLabels } from '../labels/attached-labels.ts';
import { JOB_TEMPLATE_STATUSES } from '../job-templates/job-template.resource.ts';
import { adminOf, notificationTemplateLists } from '../notification-templates/attachments.ts';
import { withWebhooks } from '../webhooks/with-webhooks.ts';
import { assertWorkflowAdmin, workflowTemplateAccess, workflowTemplateActions, workflowTemplateCapabilities } from './workflow-access.ts';

/** What a workflow's launch may be asked for (AWX's WorkflowJobTemplate ask_*_on_launch). */
export const WORKFLOW_ASK_FIELDS = ['inventory', 'limit', 'scm_branch', 'variables', 'labels', 'tags', 'skip_tags'] as const;

const askFlags = Object.fromEntries(WORKFLOW_ASK_FIELDS.map((name) => [`ask_${name}_on_launch`, boolean({ label: `Prompt for ${name.replace(/_/g, ' ')} on launch` })]));

type LabelSummary = Pick<LabelRow, 'id' | 'name'>;

async function loadLabels(db: Queryable, rows: readonly WorkflowJobTemplateRow[]): Promise<Map<number, LabelSummary[]>> {
  const labels = await db.query<LabelSummary & { owner: number }>(
    `SELECT l.workflow_job_template_id AS owner, b.id, b.name FROM workflow_job_template_labels l JOIN labels b ON b.id = l.label_id
     WHERE l.workflow_job_template_id = ANY($1::integer[]) ORDER BY b.name`,
    [rows.map((r) => r.id)],
  );
  const out = new Map<number, LabelSummary[]>();
  for (const { owner, ...label } of labels) out.set(owner, [...(out.get(owner) ?? []), label]);
  return out;
}

export const workflowJobTemplates = defineResource<WorkflowJobTemplateRow>(withWebhooks<WorkflowJobTemplateRow>({
  name: 'workflow_job_template',
  table: 'workflow_job_templates',
  label: 'Workflow Job Template List',
  description: 'A graph of templates run in order, each node started as the outcome of its parents asks.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    extra_vars: variablesField({ helpText: 'Extra variables in JSON or YAML format.' }),
    organization: ref('organization', { helpText: 'The organization used to determine access to this template.' }),
    survey_enabled: boolean(),
    allow_simultaneous: boolean(),
    ...askFlags,
    inventory: ref('inventory', { helpText: 'Inventory applied as a prompt, assuming job template prompts for inventory' }),
    limit: optionField('pattern'),
    scm_branch: text({ maxLength: 1024, label: 'Source Control Branch' }),
    job_tags: optionField('list'),
    skip_tags: optionField('list'),
    status: choice(JOB_TEMPLATE_STATUSES, { readOnly: true }),
    last_job_run: datetime({ readOnly: true }),
    last_job_failed: boolean({ readOnly: true }),
    next_job_run: datetime({ readOnly: true }),
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description'],
  ordering: 'name',
  related: {
    workflow_nodes: reverse('workflow_job_template_node', 'workflow_job_template_nodes', 'workflow_job_template_id', 'workflow_job_template'),
    workflow_jobs: reverse('workflow_job', 'workflow_jobs', 'workflow_job_template_id'),
    labels: attachedLabels({ name: 'workflow_job_template', table: 'workflow_job_template_labels', column: 'workflow_job_template_id', assertAdmin: assertWorkflowAdmin }),
    schedules: reverse('schedule', 'schedules', 'unified_job_template_id', 'unified_job_template'),
    object_roles: objectRoles('workflow_job_template'),
    ...notificationTemplateLists({ owner: 'unified_job_template', events: ['started', 'success', 'error', 'approvals'], mayAttachTo: adminOf('workflow_job_template') }),
  },
  roles: {
    admin_role: { name: 'Admin', description: 'Can manage all aspects of the workflow job template', parents: ['organization.workflow_admin_role'] },
    execute_role: { name: 'Execute', description: 'May run the workflow job template', parents: ['admin_role', 'organization.execute_role'] },
    approval_role: { name: 'Approve', description: 'Can approve or deny a workflow approval node', parents: ['admin_role', 'organization.approval_role'] },
    read_role: { name: 'Read', description: 'May view settings for the workflow job template', parents: ['organization.auditor_role', 'execute_role', 'approval_role'] },
  },
  access: { ...workflowTemplateAccess, actions: workflowTemplateActions, capabilities: workflowTemplateCapabilities },
  prepare: loadLabels,
  decorate: (row, out, prepared) => {
    const base = `/api/v2/workflow_job_templates/${row.id}/`;
    out.related = {
      ...(out.related as object),
      launch: `${base}launch/`,
      survey_spec: `${base}survey_spec/`,
      copy: `${base}copy/`,
      ...(row.last_job_id && { last_job: `/api/v2/workflow_jobs/${row.last_job_id}/` }),
      ...(row.current_job_id && { current_job: `/api/v2/workflow_jobs/${row.current_job_id}/` }),
    };
    const summary = out.summary_fields as Record<string, unknown>;
    const labels = (prepared as Map<number, LabelSummary[]> | undefined)?.get(row.id) ?? [];
    summary.labels = { count: labels.length, results: labels };
    const survey = row.survey_spec as { spec?: unknown; name?: string; description?: string } | null;
    if (survey?.spec) summary.survey = { title: survey.name ?? '', description: survey.description ?? '' };
    if (row.last_job_id) summary.last_job = { id: row.last_job_id, status: row.status, failed: row.last_job_failed, finished: row.last_job_run };
  },
}));
