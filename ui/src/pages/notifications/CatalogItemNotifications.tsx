import type { ResourceObject } from '../../api/types';
import { NotificationSwitches } from './TemplateNotifications';

const EVENTS: [string, string][] = [['requested', 'Requested'], ['approved', 'Approved'], ['rejected', 'Rejected'], ['finished', 'Finished']];

/** A catalog item's notification templates on its requests' events. */
export default function CatalogItemNotifications({ object }: { object: ResourceObject<'service_catalog_items'> }) {
  return <NotificationSwitches object={object} events={EVENTS} />;
}
