import { integer, json, ref, text, choice } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { notificationAccess } from './notification-template-access.ts';
import { NOTIFICATION_TYPE_CHOICES } from './notification-types.ts';
import type { NotificationRow } from '../../db/tables.ts';

/** A notification sent (or being sent) from a template: what it said, to whom, and how it went. */
export const notifications = defineResource<NotificationRow>({
  name: 'notification',
  table: 'notifications',
  label: 'Notification List',
  description: 'Notifications sent from notification templates, for runs or as tests.',
  fields: {
    notification_template: ref('notification_template', { readOnly: true }),
    error: text({ readOnly: true }),
    status: choice([['pending', 'Pending'], ['successful', 'Successful'], ['failed', 'Failed']], { readOnly: true }),
    notifications_sent: integer({ readOnly: true }),
    notification_type: choice(NOTIFICATION_TYPE_CHOICES, { readOnly: true }),
    recipients: text({ readOnly: true }),
    subject: text({ readOnly: true }),
    body: json({ readOnly: true, helpText: 'Notification body' }),
  },
  ordering: 'id',
  search: ['subject', 'notification_type'],
  summaryColumns: ['id', 'status', 'notification_type'],
  operations: { create: false, update: false, delete: false },
  access: notificationAccess,
  decorate(row, out) {
    delete out.created_by;
    delete out.modified_by;
    const related = out.related as Record<string, string>;
    delete related.created_by;
    delete related.modified_by;
    if (row.unified_job_id) related.unified_job = `/api/v2/unified_jobs/${row.unified_job_id}/`;
  },
});
