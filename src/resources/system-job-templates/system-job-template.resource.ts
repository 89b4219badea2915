import { isSuperuser, seesEverything } from '../../api/access.ts';
import { boolean, choice, datetime, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { reverse } from '../../api/relations.ts';
import { notificationTemplateLists } from '../notification-templates/attachments.ts';
import { SYSTEM_JOB_TYPES, superuserOrAuditorList } from './system-job-options.ts';
import type { SystemJobTemplateRow } from '../../db/tables.ts';

const STATUSES = ['new', 'pending', 'waiting', 'running', 'successful', 'failed', 'error', 'canceled', 'never updated', 'ok', 'missing', 'none', 'updating'];

/**
 * System job templates: the service's own maintenance (AWX's SystemJobTemplate), installed by the
 * migration, never created or changed through the API; only superusers and system auditors see
 * them, only superusers launch them.
 */
export const systemJobTemplates = defineResource<SystemJobTemplateRow>({
  name: 'system_job_template',
  table: 'system_job_templates',
  label: 'System Job Template List',
  description: 'Maintenance jobs of the service: cleanup of old jobs, activity stream, sessions and tokens.',
  fields: {
    name: text({ readOnly: true }),
    description: text({ readOnly: true }),
    job_type: choice(SYSTEM_JOB_TYPES, { readOnly: true }),
    status: choice(STATUSES, { readOnly: true }),
    last_job: ref('unified_job', { readOnly: true }),
    last_job_run: datetime({ readOnly: true }),
    last_job_failed: boolean({ readOnly: true }),
    next_job_run: datetime({ readOnly: true }),
    current_job: ref('unified_job', { readOnly: true }),
  },
  operations: { create: false, update: false, delete: false },
  ordering: 'id',
  search: ['name', 'description'],
  related: {
    schedules: reverse('schedule', 'schedules', 'unified_job_template_id', 'unified_job_template'),
    jobs: reverse('system_job', 'system_jobs', 'unified_job_template_id'),
    ...notificationTemplateLists({ owner: 'unified_job_template', mayAttachTo: async (ctx) => isSuperuser(ctx) }),
  },
  access: {
    visible: (ctx) => (seesEverything(ctx) ? null : 'false'),
    listRefusal: superuserOrAuditorList,
    canCreate: () => false,
    canChange: (ctx) => isSuperuser(ctx),
    canDelete: () => false,
    canAttach: () => false,
    actions: { execute: (ctx) => isSuperuser(ctx) },
    capabilities: { start: (ctx) => isSuperuser(ctx), schedule: 'start' },
  },
  decorate: (row, out) => {
    const base = `/api/v2/system_job_templates/${row.id}/`;
    out.related = { ...(out.related as object), launch: `${base}launch/` };
    out.execution_environment = null;
  },
});
