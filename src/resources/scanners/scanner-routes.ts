/** Scanner endpoints beyond CRUD (docs/scanners.md#scanners): enable/ and disable/. */
import type { RouteModule } from '../../api/extra-routes.ts';
import { enableDisableRoutes } from '../../api/toggle-routes.ts';

export const scannerRoutes: RouteModule = (app, services) => {
  enableDisableRoutes(app, services, services.resources.get('scanner'));
};
