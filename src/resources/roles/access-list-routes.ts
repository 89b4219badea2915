/** GET /<resources>/{id}/access_list/ on every resource with roles, and on users (as AWX). */
import type { RouteModule } from '../../api/extra-routes.ts';
import { listQuerySchema, OPTIONS_RESPONSE, pageSchema } from '../../api/field-schemas.ts';
import { listPage, type Query } from '../../api/list.ts';
import { listOptions } from '../../api/options.ts';
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { AccessListBuilder, accessListScope, type AccessListUser } from './access-list.ts';

export const accessListRoutes: RouteModule = (app, services) => {
  const { db } = services;
  const users = services.resources.get('user');
  const owners = services.resources.all.filter((r) => r.topLevel && (Object.keys(r.roles).length > 0 || r === users));
  for (const resource of owners) {
    routeMethods(app, `${resource.listPath}:id/access_list/`, objectPermission(resource.name), {
      GET: async (request) => {
        const object = request.object;
        const query = { order_by: 'username', ...(request.query as Query) };
        const page = await listPage(db, request.ctx, users, request.url.split('?')[0], query, accessListScope(resource.name, object.id));
        const builder = new AccessListBuilder(db, request.ctx, resource, object);
        const rows = await db.query<AccessListUser>('SELECT id, is_superuser, is_system_auditor FROM users WHERE id = ANY($1::integer[])', [page.results.map((u) => u.id)]);
        const flags = new Map<unknown, AccessListUser>(rows.map((r) => [r.id, r]));
        for (const user of page.results) {
          const summary = user.summary_fields as Record<string, unknown>;
          delete summary.user_capabilities;
          // A serialized user shows the same id, is_superuser and is_system_auditor.
          Object.assign(summary, await builder.entriesOf(flags.get(user.id) ?? (user as AccessListUser)));
        }
        return page;
      },
      OPTIONS: async () => listOptions(services.resources, users, false, `${resource.label.replace(/ List$/, '')} Access List`),
    }, {
      GET: { summary: 'Users with access to the object, and how they hold it', querystring: listQuerySchema(users), response: { 200: pageSchema(users) } },
      OPTIONS: OPTIONS_RESPONSE,
    });
  }
};
