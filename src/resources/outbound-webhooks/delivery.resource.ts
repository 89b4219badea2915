import type { AccessPolicy } from '../../api/access.ts';
import { choice, datetime, integer, json, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { organizationAdminsOrAuditors } from '../organizations/organization-scoped-access.ts';
import type { OutboundWebhookDeliveryRow } from '../../db/tables.ts';

const readOnly = { readOnly: true } as const;
const refuse = () => false;

export const DELIVERY_STATUSES = ['pending', 'sent', 'failed'] as const;

/** Whoever reads the webhook reads its deliveries; only the service writes them. */
const deliveryAccess: AccessPolicy = {
  visible: (ctx, alias, params) => {
    const webhooks = organizationAdminsOrAuditors(ctx, 'w', params);
    return webhooks === null ? null : `${alias}.webhook_id IN (SELECT w.id FROM outbound_webhooks w WHERE ${webhooks})`;
  },
  canCreate: refuse,
  canChange: refuse,
  canDelete: refuse,
  canAttach: refuse,
};

/** One event sent (or being sent) to an outbound webhook, newest first: read at /outbound_webhooks/{id}/deliveries/. */
export const outboundWebhookDeliveries = defineResource<OutboundWebhookDeliveryRow>({
  name: 'outbound_webhook_delivery',
  table: 'outbound_webhook_deliveries',
  plural: 'outbound_webhook_deliveries',
  label: 'Outbound Webhook Delivery List',
  description: 'Deliveries of an outbound webhook: what was sent, how often it was tried, and what the target answered.',
  fields: {
    created: datetime({ ...readOnly, nullable: false }),
    webhook: ref('outbound_webhook', readOnly),
    event_type: text(readOnly),
    run: ref('unified_job', { ...readOnly, nullable: true, helpText: 'The job or workflow job the event is about.' }),
    status: choice(DELIVERY_STATUSES, readOnly),
    attempts: integer(readOnly),
    next_attempt_at: datetime({ ...readOnly, helpText: 'When a pending delivery is tried next.' }),
    response_status: integer({ ...readOnly, nullable: true, helpText: 'The HTTP status of the last attempt; empty when it got no answer.' }),
    error: text(readOnly),
    sent_at: datetime(readOnly),
    payload: json({ ...readOnly, helpText: 'The body sent, without its signature.' }),
  },
  untracked: true,
  topLevel: false,
  operations: { create: false, update: false, delete: false },
  ordering: '-id',
  search: ['event_type', 'error'],
  access: deliveryAccess,
});
