/**
 * Notifications of a service request (docs/service-catalog.md#notifications): each notification
 * template attached to its item for the event is queued in the request's transaction, and sent
 * by the notification loop once it commits.
 */
import type { Queryable } from '../../db/database.ts';
import type { ServiceRequestRow } from '../../db/tables.ts';
import type { CatalogEvent } from '../notification-templates/attachments.ts';
import { queueTemplateNotification } from '../notification-templates/queue.ts';

/** What messages may use of a request: `service_request` (its item, requester, status...). */
async function requestContext(tx: Queryable, request: ServiceRequestRow, itemName: string): Promise<Record<string, unknown>> {
  const [requester] = request.requester_id === null ? [] : await tx.query<{ username: string }>('SELECT username FROM users WHERE id = $1', [request.requester_id]);
  return {
    service_request: {
      id: request.id,
      status: request.status,
      catalog_item: { id: request.catalog_item_id, name: itemName },
      requester: requester?.username ?? '',
      justification: request.justification,
      reason: request.reason,
      unified_job: request.unified_job_id,
      refusal_detail: request.refusal_detail,
      path: `/api/v2/service_requests/${request.id}/`,
    },
  };
}

/** Queues the notifications of `event` attached to the request's item; answers how many. */
export async function notifyRequest(tx: Queryable, request: ServiceRequestRow, event: CatalogEvent): Promise<number> {
  if (request.catalog_item_id === null) return 0;
  const templates = await tx.query<{ id: number; item_name: string }>(
    `SELECT a.notification_template_id AS id, i.name AS item_name FROM service_catalog_item_notification_templates a
     JOIN service_catalog_items i ON i.id = a.service_catalog_item_id
     WHERE a.service_catalog_item_id = $1 AND a.event = $2 ORDER BY a.notification_template_id`,
    [request.catalog_item_id, event],
  );
  if (!templates.length) return 0;
  const extraContext = await requestContext(tx, request, templates[0].item_name);
  for (const { id } of templates) {
    await queueTemplateNotification(tx, id, `service_request.${event}`, { unifiedJobId: request.unified_job_id, extraContext });
  }
  return templates.length;
}
