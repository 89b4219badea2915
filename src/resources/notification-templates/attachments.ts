/**
 * Notification templates attached to what runs notify about (AWX's notification_templates_started,
 * _success, _error and _approvals related lists). One helper makes the lists of any template kind:
 * every kind draws its ids from one sequence, so one table keyed by that id serves them all;
 * organizations have a table of their own.
 *
 *   related: { ...notificationTemplateLists({ owner: 'unified_job_template', mayAttachTo: ... }) }
 */
import { hasObjectRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden } from '../../api/errors.ts';
import { reverse, type Relation } from '../../api/relations.ts';
import type { Queryable } from '../../db/database.ts';
import type { InventorySourceRow, NotificationTemplateRow } from '../../db/tables.ts';
import { isNotificationAdmin } from './notification-template-access.ts';

export type AttachEvent = 'started' | 'success' | 'error' | 'approvals' | CatalogEvent;
/** What a service catalog item notifies about (docs/service-catalog.md#notifications). */
export type CatalogEvent = 'requested' | 'approved' | 'rejected' | 'finished';

const OWNERS = {
  unified_job_template: { table: 'unified_job_template_notification_templates', column: 'unified_job_template_id' },
  organization: { table: 'organization_notification_templates', column: 'organization_id' },
  service_catalog_item: { table: 'service_catalog_item_notification_templates', column: 'service_catalog_item_id' },
} as const;

export interface NotificationListsOptions {
  owner: keyof typeof OWNERS;
  /** Events with a list (started, success and error unless given; workflows and organizations add approvals). */
  events?: readonly AttachEvent[];
  /** Besides managing the notification template, what the caller needs on the object (AWX: admin of it). */
  mayAttachTo(ctx: RequestContext, tx: Queryable, objectId: number): Promise<boolean>;
}

/** One attachment list: the templates attached to an object for one event. */
function attachmentList(options: NotificationListsOptions, event: AttachEvent): Relation {
  const { table, column } = OWNERS[options.owner];
  const alias = `nt_${event}`;
  return {
    target: 'notification_template',
    from: `(SELECT * FROM ${table} WHERE event = '${event}') AS ${alias}`,
    parentColumn: `${alias}.${column}`,
    targetColumn: `${alias}.notification_template_id`,
    attachable: true,
    // POST without an id creates a notification template (it names its organization) and attaches it, as AWX's *NotificationTemplatesAnyList.
    createAndLink: {},
    association: `notification_templates_${event}`,
    async authorize(ctx, tx, parentId, templateId) {
      const [template] = await tx.query<Pick<NotificationTemplateRow, 'organization_id'>>('SELECT organization_id FROM notification_templates WHERE id = $1', [templateId]);
      if (!template || !(await isNotificationAdmin(ctx, tx, template.organization_id)) || !(await options.mayAttachTo(ctx, tx, parentId))) throw forbidden();
    },
    async attach(tx, parentId, templateId) {
      const rows = await tx.query(
        `INSERT INTO ${table} (${column}, notification_template_id, event) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1`,
        [parentId, templateId, event],
      );
      return rows.length > 0;
    },
    async detach(tx, parentId, templateId) {
      const rows = await tx.query(`DELETE FROM ${table} WHERE ${column} = $1 AND notification_template_id = $2 AND event = $3 RETURNING 1`, [parentId, templateId, event]);
      return rows.length > 0;
    },
  };
}

/** The related lists notification_templates_<event> of one kind of object, to spread into its `related`. */
export function notificationTemplateLists(options: NotificationListsOptions): Record<string, Relation> {
  const events = options.events ?? ['started', 'success', 'error'];
  return Object.fromEntries(events.map((event) => [`notification_templates_${event}`, attachmentList(options, event)]));
}

/** Admin of the object of `contentType` (job templates, projects, workflow job templates...). */
export const adminOf = (contentType: string) => (ctx: RequestContext, tx: Queryable, id: number) => hasObjectRole(ctx, tx, contentType, id, 'admin_role');

/** An organization's lists: its templates (created there) and those attached for each event, approvals included. */
export const organizationNotificationLists = (): Record<string, Relation> => ({
  notification_templates: reverse('notification_template', 'notification_templates', 'organization_id', 'organization'),
  ...notificationTemplateLists({ owner: 'organization', events: ['started', 'success', 'error', 'approvals'], mayAttachTo: adminOf('organization') }),
});

/** An inventory source is administered through its inventory. */
export async function adminOfSourceInventory(ctx: RequestContext, tx: Queryable, sourceId: number): Promise<boolean> {
  const [source] = await tx.query<Pick<InventorySourceRow, 'inventory_id'>>('SELECT inventory_id FROM inventory_sources WHERE id = $1', [sourceId]);
  return source !== undefined && hasObjectRole(ctx, tx, 'inventory', source.inventory_id, 'admin_role');
}
