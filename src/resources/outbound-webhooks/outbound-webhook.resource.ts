import { boolean, datetime, integer, ref, secret, text } from '../../api/fields.ts';
import { reverse } from '../../api/relations.ts';
import { defineResource } from '../../api/resource.ts';
import { organizationAdminsManage } from '../organizations/organization-scoped-access.ts';
import { revealGeneratedKey, storeKey } from './signing-key.ts';
import { customHeadersField, eventsField, urlField } from './webhook-fields.ts';
import type { OutboundWebhookRow } from '../../db/tables.ts';

const readOnly = { readOnly: true } as const;

/**
 * URLs told of an organization's job and workflow status changes by signed JSON deliveries
 * (docs/outbound-webhooks.md). Its admins manage them, its auditors read them.
 */
export const outboundWebhooks = defineResource<OutboundWebhookRow>({
  name: 'outbound_webhook',
  table: 'outbound_webhooks',
  label: 'Outbound Webhook List',
  description: 'URLs that receive a signed JSON delivery when a job or workflow of the organization starts or ends.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    organization: ref('organization', { required: true }),
    url: urlField(),
    webhook_key: secret({ maxLength: 512, label: 'Signing key', helpText: 'The key deliveries are signed with (X-Svc-Signature). Generated when left empty, and then shown once in the create response.' }),
    events: eventsField(),
    custom_headers: customHeadersField(),
    enabled: boolean({ default: true, helpText: 'A disabled webhook is sent nothing.' }),
    ssl_verify: boolean({ default: true, label: 'Verify SSL', helpText: "Verify the target's TLS certificate." }),
    last_status: integer({ ...readOnly, nullable: true, helpText: 'The HTTP status of the last attempt; empty when it got no answer.' }),
    last_sent_at: datetime(readOnly),
    last_error: text(readOnly),
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description', 'url'],
  ordering: 'name',
  unique: [['organization', 'name']],
  summaryColumns: ['id', 'name', 'enabled'],
  related: { deliveries: reverse('outbound_webhook_delivery', 'outbound_webhook_deliveries', 'webhook_id') },
  access: organizationAdminsManage(['test']),
  hooks: {
    beforeWrite: (_tx, ctx, values, existing) => storeKey(ctx, values, existing),
    afterWrite: (_tx, ctx, row, existing) => {
      if (!existing) revealGeneratedKey(ctx, row);
    },
  },
  decorate: (row, out) => {
    out.related = { ...(out.related as object), test: `/api/v2/outbound_webhooks/${row.id}/test/` };
  },
});
