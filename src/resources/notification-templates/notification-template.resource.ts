import { choice, FieldProblem, json, ref, text, type Field } from '../../api/fields.ts';
import { ValidationError } from '../../api/errors.ts';
import { reverse } from '../../api/relations.ts';
import { defineResource, type Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { NotificationRow, NotificationTemplateRow } from '../../db/tables.ts';
import { displayConfiguration, prepareConfiguration, type Configuration } from './configuration.ts';
import { DEFAULT_MESSAGES, mergeMessages, validateMessages, type Messages } from './messages.ts';
import { notificationTemplateAccess } from './notification-template-access.ts';
import { defaultMessages } from './default-messages.ts';
import { configurationMeta, NOTIFICATION_TYPE_CHOICES, NOTIFICATION_TYPES } from './notification-types.ts';

/** Checked against the kind in beforeWrite; secrets read back as "$encrypted$" and show as hidden in the activity stream. */
const configurationField: Field = {
  ...json({ helpText: 'Configuration of the notification kind: its fields (see the documentation); secrets read back as $encrypted$.' }),
  secret: true,
  parse: (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FieldProblem('Expected a JSON object.');
    return value;
  },
  serialize: displayConfiguration,
  // As AWX's OPTIONS: the fields of each kind.
  optionsMeta: configurationMeta(),
};

const messagesField: Field = {
  ...json({ default: DEFAULT_MESSAGES, nullable: true, helpText: 'Optional custom messages for notification template.' }),
  parse: (value) => value,
  // As AWX's OPTIONS: the default messages of each kind.
  optionsMeta: Object.fromEntries(Object.keys(NOTIFICATION_TYPES).map((type) => [type, defaultMessages(type)])),
};

async function beforeTemplateWrite(_tx: Queryable, _ctx: unknown, values: Values, existing: NotificationTemplateRow | null): Promise<void> {
  const type = (values.notification_type ?? existing?.notification_type) as string;
  const typeChanged = existing !== null && type !== existing.notification_type;
  if ('notification_configuration' in values || !existing || typeChanged) {
    if (!('notification_configuration' in values) && typeChanged) {
      throw ValidationError.field('notification_configuration', 'A new notification_configuration is required when notification_type changes.');
    }
    const stored = existing && !typeChanged ? (existing.notification_configuration as Configuration) : null;
    values.notification_configuration = prepareConfiguration(type, values.notification_configuration ?? {}, stored);
  }
  if ('messages' in values) {
    const messages = validateMessages(values.messages);
    values.messages = existing ? mergeMessages(existing.messages as Messages, messages) : messages === null ? null : { ...DEFAULT_MESSAGES, ...messages };
  }
}

type RecentNotification = Pick<NotificationRow, 'id' | 'status' | 'created' | 'error' | 'notification_template_id'>;

interface Recent {
  byTemplate: Map<number, RecentNotification[]>;
}

/** The five latest notifications of each template of a page (AWX's summary_fields.recent_notifications). */
async function recentNotifications(db: Queryable, rows: readonly NotificationTemplateRow[]): Promise<Recent> {
  const recent = await db.query<RecentNotification>(
    `SELECT r.* FROM unnest($1::integer[]) AS t(id), LATERAL (
       SELECT id, status, created, error, notification_template_id FROM notifications WHERE notification_template_id = t.id ORDER BY created DESC, id DESC LIMIT 5
     ) AS r`,
    [rows.map((r) => r.id)],
  );
  const byTemplate = new Map<number, RecentNotification[]>();
  for (const n of recent) byTemplate.set(n.notification_template_id, [...(byTemplate.get(n.notification_template_id) ?? []), n]);
  return { byTemplate };
}

export const notificationTemplates = defineResource<NotificationTemplateRow>({
  name: 'notification_template',
  table: 'notification_templates',
  label: 'Notification Template List',
  description: 'Notification templates say where and how to send notifications of runs (email, chat, webhooks, incidents...).',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false, helpText: 'Name of this notification template.' }),
    description: text({ helpText: 'Optional description of this notification template.' }),
    organization: ref('organization', { required: true }),
    notification_type: choice(NOTIFICATION_TYPE_CHOICES, { required: true }),
    notification_configuration: configurationField,
    messages: messagesField,
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description'],
  ordering: 'name',
  unique: [['organization', 'name']],
  summaryColumns: ['id', 'name', 'description', 'notification_type'],
  related: { notifications: reverse('notification', 'notifications', 'notification_template_id') },
  access: notificationTemplateAccess,
  hooks: { beforeWrite: beforeTemplateWrite },
  prepare: recentNotifications,
  decorate(row, out, prepared) {
    const related = out.related as Record<string, string>;
    related.test = `${notificationTemplates.detailPath(row.id)}test/`;
    related.copy = `${notificationTemplates.detailPath(row.id)}copy/`;
    const recent = (prepared as Recent | undefined)?.byTemplate.get(row.id) ?? [];
    (out.summary_fields as Record<string, unknown>).recent_notifications = recent.map((n) => ({
      id: n.id, status: n.status, created: n.created instanceof Date ? n.created.toISOString() : n.created, error: n.error,
    }));
  },
});
