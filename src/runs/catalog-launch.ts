/**
 * What the catalog launchers of every kind share (docs/service-catalog.md): the item's authority
 * holds only while the item still points at the template and the template is still of the
 * item's organization, and gates are told that a catalog request started the launch.
 */
import { ApiError } from '../api/errors.ts';
import type { Row } from '../db/database.ts';
import type { CatalogLaunch, LaunchTrigger } from './run-kind.ts';

/** Refuses the launch unless the item still offers this template of its own organization (the item's creator may execute it). */
export function assertItemOffers(launch: CatalogLaunch, column: 'job_template_id' | 'workflow_job_template_id', template: Row): void {
  if (launch.item[column] !== template.id || template.organization_id !== launch.item.organization_id) {
    throw new ApiError(403, { detail: "The catalog item's template is no longer one of the item's organization." });
  }
}

/** The trigger gates see: the item and the request. */
export const catalogTrigger = (launch: CatalogLaunch): LaunchTrigger => ({
  type: 'catalog',
  catalog_item: { id: launch.item.id, name: launch.item.name },
  service_request: launch.request.id,
});
