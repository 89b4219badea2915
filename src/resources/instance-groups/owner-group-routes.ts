/** /inventories/{id}/instance_groups/ and /organizations/{id}/instance_groups/, tried after a job template's. */
import { hasObjectRole, isSuperuser } from '../../api/access.ts';
import { forbidden } from '../../api/errors.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { getResource } from '../../api/resource.ts';
import { registerAttachedGroupRoutes } from './attached-groups.ts';

export const ownerGroupRoutes: RouteModule = (app, services) => {
  registerAttachedGroupRoutes(app, services, {
    resource: getResource('inventory'),
    table: 'inventory_instance_groups',
    column: 'inventory_id',
    assertMayChange: async (ctx, tx, id) => {
      if (!(await hasObjectRole(ctx, tx, 'inventory', id, 'admin_role'))) throw forbidden();
    },
    mayChange: (ctx, db, inventory) => hasObjectRole(ctx, db, 'inventory', inventory.id, 'admin_role'),
  });
  // As AWX: only a system administrator sets an organization's instance groups.
  registerAttachedGroupRoutes(app, services, {
    resource: getResource('organization'),
    table: 'organization_instance_groups',
    column: 'organization_id',
    assertMayChange: async (ctx) => {
      if (!isSuperuser(ctx)) throw forbidden();
    },
    mayChange: async (ctx) => isSuperuser(ctx),
  });
};
