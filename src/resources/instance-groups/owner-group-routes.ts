/** /inventories/{id}/instance_groups/ and /organizations/{id}/instance_groups/, tried after a job template's. */
import type { RouteModule } from '../../api/extra-routes.ts';
import { registerAttachedGroupRoutes } from './attached-groups.ts';

export const ownerGroupRoutes: RouteModule = (app, services) => {
  registerAttachedGroupRoutes(app, services, {
    resource: services.resources.get('inventory'),
    table: 'inventory_instance_groups',
    column: 'inventory_id',
    changeAction: 'administer',
  });
  registerAttachedGroupRoutes(app, services, {
    resource: services.resources.get('organization'),
    table: 'organization_instance_groups',
    column: 'organization_id',
    changeAction: 'administer_instance_groups',
  });
};
