import type { ResourceObject } from '../../api/types';
import { withQuery } from '../../api/client';
import { resourceConfig } from '../../resources/registry';
import { ResourceList } from '../../components/ResourceList';

/**
 * Playbook runs that used the inventory. The unified job list cannot be filtered by inventory
 * here (AWX's or__job__inventory...), so ad hoc commands and syncs stay on their own tabs.
 */
export default function InventoryJobs({ object }: { object: ResourceObject<'inventories'> }) {
  const config = resourceConfig('jobs')!;
  return <ResourceList config={{ ...config, creatable: false }} url={withQuery('/api/v2/jobs/', { inventory: object.id })} refetchInterval={5_000} />;
}
