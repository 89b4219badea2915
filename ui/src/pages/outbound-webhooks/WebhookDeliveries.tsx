import type { ResourceObject } from '../../api/types';
import { objectUrl } from '../../api/object-url';
import { ResourceList } from '../../components/ResourceList';
import { listOf } from '../../resources/types';
import { DELIVERY_COLUMNS } from './webhook-cells';

const DELIVERIES = listOf({
  key: 'outbound_webhook_deliveries',
  label: 'Deliveries',
  singular: 'Delivery',
  creatable: false,
  columns: DELIVERY_COLUMNS,
  emptyHint: 'Deliveries appear when a job or workflow of the organization sends one of the events the webhook listens for, or when a test is sent.',
});

/** A webhook's Deliveries tab: its history, newest first, refreshed while retries go on. */
export default function WebhookDeliveries({ object }: { object: ResourceObject<'outbound_webhooks'> }) {
  return <ResourceList config={DELIVERIES} url={object.related?.deliveries ?? `${objectUrl(object)}deliveries/`} refetchInterval={5_000} />;
}
