import { boolean, choice, datetime, integer, ref, text } from '../../api/fields.ts';
import { VERBOSITY_CHOICES } from '../../runs/run-fields.ts';
import { defineResource } from '../../api/resource.ts';
import { reverse } from '../../api/relations.ts';
import type { Queryable } from '../../db/database.ts';
import { variablesField } from '../../inventory/variables.ts';
import { optionField } from '../../ansible/option-values.ts';
import { objectRoles } from '../../rbac/relations.ts';
import { jobTemplateAccess } from './job-template-access.ts';
import { jobTemplateActions, jobTemplateCapabilities } from './job-template-actions.ts';
import { checkJobTemplate } from './job-template-hooks.ts';
import { withWebhooks } from '../webhooks/with-webhooks.ts';
import { templateCredentials, templateLabels } from './template-relations.ts';
import { templateInventories } from './template-inventories.ts';
import { adminOf, notificationTemplateLists } from '../notification-templates/attachments.ts';
import type { JobTemplateRow } from '../../db/tables.ts';

export const JOB_TEMPLATE_STATUSES = ['new', 'pending', 'waiting', 'running', 'successful', 'failed', 'error', 'canceled', 'never updated'];

/** What may be asked at launch instead of taken from the template, as AWX names the flags. */
export const ASK_FIELDS = [
  'scm_branch', 'diff_mode', 'variables', 'limit', 'tags', 'skip_tags', 'job_type', 'verbosity', 'inventory', 'credential',
  'execution_environment', 'labels', 'forks', 'job_slice_count', 'timeout', 'instance_groups',
] as const;

const askFlags = Object.fromEntries(ASK_FIELDS.map((name) => [`ask_${name}_on_launch`, boolean({ label: `Prompt for ${name.replace(/_/g, ' ')} on launch` })]));

/** A credential of a template as its summary shows it. */
interface CredentialSummary {
  id: number;
  name: string;
  description: string;
  kind: string;
  cloud_kind: string | null;
  credential_type_id: number;
}

interface LabelSummary {
  id: number;
  name: string;
}

interface PageExtras {
  credentials: Map<number, CredentialSummary[]>;
  labels: Map<number, LabelSummary[]>;
}

/** Rows of a template's links, grouped by template without the template's id. */
function byTemplate<T extends { job_template_id: number }>(list: T[]): Map<number, Omit<T, 'job_template_id'>[]> {
  const out = new Map<number, Omit<T, 'job_template_id'>[]>();
  for (const { job_template_id, ...rest } of list) out.set(job_template_id, [...(out.get(job_template_id) ?? []), rest]);
  return out;
}

async function loadPageExtras(db: Queryable, rows: readonly JobTemplateRow[]): Promise<PageExtras> {
  const ids = rows.map((r) => r.id);
  const [credentials, labels] = await Promise.all([
    db.query<CredentialSummary & { job_template_id: number }>(
      `SELECT l.job_template_id, c.id, c.name, c.description, t.kind, t.namespace AS cloud_kind, c.credential_type_id
       FROM job_template_credentials l JOIN credentials c ON c.id = l.credential_id JOIN credential_types t ON t.id = c.credential_type_id
       WHERE l.job_template_id = ANY($1::integer[]) ORDER BY c.id`,
      [ids],
    ),
    db.query<LabelSummary & { job_template_id: number }>('SELECT l.job_template_id, b.id, b.name FROM job_template_labels l JOIN labels b ON b.id = l.label_id WHERE l.job_template_id = ANY($1::integer[]) ORDER BY b.name', [ids]),
  ]);
  return { credentials: byTemplate(credentials), labels: byTemplate(labels) };
}

// Webhooks (webhook_service, webhook_credential, the key and related links) as AWX's WebhookTemplateMixin.
export const jobTemplates = defineResource<JobTemplateRow>(withWebhooks<JobTemplateRow>({
  name: 'job_template',
  table: 'job_templates',
  label: 'Job Template List',
  description: 'A playbook of a project, run against an inventory with credentials and settings.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    job_type: choice([['run', 'Run'], ['check', 'Check']], { default: 'run' }),
    inventory: ref('inventory'),
    project: ref('project'),
    playbook: text({ maxLength: 1024 }),
    scm_branch: text({ maxLength: 1024, label: 'Source Control Branch', helpText: 'Branch to use in job run. Project default used if blank. Only allowed if project allow_override field is set to true.' }),
    forks: integer({ default: 0, min: 0 }),
    limit: optionField('pattern'),
    verbosity: integer({ default: 0, choices: VERBOSITY_CHOICES }),
    extra_vars: variablesField({ helpText: 'Extra variables in JSON or YAML format.' }),
    job_tags: optionField('list'),
    skip_tags: optionField('list'),
    start_at_task: optionField('text'),
    timeout: integer({ default: 0, min: 0, helpText: 'The amount of time (in seconds) to run before the task is canceled.' }),
    use_fact_cache: boolean({ helpText: 'Store facts gathered by the playbook for use by later runs.' }),
    organization: ref('organization', { readOnly: true, helpText: 'The organization of the project.' }),
    host_config_key: text({ maxLength: 1024, helpText: 'Key a host uses to ask for a provisioning callback.' }),
    ...askFlags,
    survey_enabled: boolean(),
    become_enabled: boolean(),
    diff_mode: boolean({ helpText: 'Show the changes made by Ansible tasks, where supported.' }),
    force_handlers: boolean({ label: 'Enable forcing playbook handlers', helpText: 'Run handlers even when a task fails (ansible-playbook --force-handlers).' }),
    allow_simultaneous: boolean(),
    job_slice_count: integer({ default: 1, min: 1, helpText: 'The number of jobs to slice into at runtime.' }),
    execution_environment: ref('execution_environment'),
    status: choice(JOB_TEMPLATE_STATUSES, { readOnly: true }),
    last_job_run: datetime({ readOnly: true }),
    last_job_failed: boolean({ readOnly: true }),
    next_job_run: datetime({ readOnly: true }),
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description', 'playbook'],
  ordering: 'name',
  summaryColumns: ['id', 'name', 'description'],
  related: {
    credentials: templateCredentials(),
    labels: templateLabels(),
    inventories: templateInventories,
    jobs: reverse('unified_job', 'unified_jobs', 'unified_job_template_id'),
    schedules: reverse('schedule', 'schedules', 'unified_job_template_id', 'unified_job_template'),
    object_roles: objectRoles('job_template'),
    ...notificationTemplateLists({ owner: 'unified_job_template', mayAttachTo: adminOf('job_template') }),
  },
  roles: {
    admin_role: { name: 'Admin', description: 'Can manage all aspects of the job template', parents: ['organization.job_template_admin_role'] },
    execute_role: { name: 'Execute', description: 'May run the job template', parents: ['admin_role', 'organization.execute_role'] },
    read_role: { name: 'Read', description: 'May view settings for the job template', parents: ['organization.auditor_role', 'execute_role'] },
  },
  access: { ...jobTemplateAccess, actions: jobTemplateActions, capabilities: jobTemplateCapabilities },
  hooks: { beforeWrite: checkJobTemplate },
  prepare: loadPageExtras,
  decorate: (row, out, prepared) => {
    const extras = prepared as PageExtras | undefined;
    const base = `/api/v2/job_templates/${row.id}/`;
    out.related = {
      ...(out.related as object),
      launch: `${base}launch/`,
      survey_spec: `${base}survey_spec/`,
      copy: `${base}copy/`,
      schedules: `${base}schedules/`,
      instance_groups: `${base}instance_groups/`,
      ...(row.last_job_id && { last_job: `/api/v2/jobs/${row.last_job_id}/` }),
      ...(row.current_job_id && { current_job: `/api/v2/jobs/${row.current_job_id}/` }),
    };
    out.custom_virtualenv = null;
    out.prevent_instance_group_fallback = false;
    const summary = out.summary_fields as Record<string, unknown>;
    const credentials = extras?.credentials.get(row.id) ?? [];
    const labels = extras?.labels.get(row.id) ?? [];
    summary.credentials = credentials.map(({ id, name, description, kind, cloud_kind, credential_type_id }) => ({ id, name, description, kind, cloud: kind === 'cloud', cloud_kind, credential_type_id }));
    summary.labels = { count: labels.length, results: labels };
    const survey = row.survey_spec as { spec?: unknown; name?: string; description?: string } | null;
    if (survey?.spec) summary.survey = { title: survey.name ?? '', description: survey.description ?? '' };
    if (row.last_job_id) summary.last_job = { id: row.last_job_id, status: row.status, failed: row.last_job_failed, finished: row.last_job_run };
  },
}));
