import type { ApiObject } from '../../api/types';
import { withQuery } from '../../api/client';
import { resourceConfig } from '../../resources/registry';
import { ResourceList } from '../../components/ResourceList';

/** Runs that used the inventory: playbook runs, ad hoc commands, its sources' syncs and workflow jobs. */
export default function InventoryJobs({ object }: { object: ApiObject }) {
  const config = resourceConfig('unified_jobs')!;
  const url = withQuery('/api/v2/unified_jobs/', {
    or__job__inventory: object.id,
    or__adhoccommand__inventory: object.id,
    or__inventoryupdate__inventory_source__inventory: object.id,
    or__workflowjob__inventory: object.id,
  });
  return <ResourceList config={{ ...config, creatable: false }} url={url} refetchInterval={5_000} />;
}
