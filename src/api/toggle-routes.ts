/**
 * POST /<resources>/{id}/enable/ and /disable/ for resources with an `enabled` field (drift alert
 * rules, event rules): allowed by the access policy's `enable` action, recorded in the activity stream
 * when the value changes, answering the object.
 */
import type { FastifyInstance } from 'fastify';
import { recordActivity } from '../activity/record.ts';
import type { Queryable, ResourceRow } from '../db/database.ts';
import { OPTIONS_RESPONSE } from './action-schemas.ts';
import type { Services } from './context.ts';
import { actionOptions } from './options.ts';
import { objectPermission } from './permissions.ts';
import type { Resource } from './resource.ts';
import { routeMethods } from './resource-routes.ts';
import { serializeRow } from './serialize.ts';
import { ident } from './sql.ts';

export function enableDisableRoutes(app: FastifyInstance, services: Services, resource: Resource, afterToggle?: (tx: Queryable, row: ResourceRow) => Promise<void>): void {
  const title = resource.label.replace(/ List$/, '');
  for (const [action, enabled] of [['enable', true], ['disable', false]] as const) {
    routeMethods(app, `${resource.listPath}:id/${action}/`, objectPermission(resource.name, { POST: 'enable' }), {
      GET: async () => ({}),
      POST: async (request) => {
        const row = await services.db.transaction(async (tx) => {
          const [updated] = await tx.query<ResourceRow>(
            `UPDATE ${ident(resource.table)} SET enabled = $2, modified = now(), modified_by_id = $3 WHERE id = $1 RETURNING *`,
            [request.object.id, enabled, request.ctx.user!.id],
          );
          if (request.object.enabled !== enabled) {
            await recordActivity(tx, request.ctx, { operation: 'update', object1: resource.name, object1Id: updated.id, changes: { enabled: [request.object.enabled, enabled] } });
          }
          await afterToggle?.(tx, updated);
          return updated;
        });
        return serializeRow(services.db, request.ctx, resource, row);
      },
      OPTIONS: async () => actionOptions(`${title} ${enabled ? 'Enable' : 'Disable'}`, `POST (no body): ${enabled ? 'resumes' : 'pauses'} the ${title.toLowerCase()}.`, { GET: {}, POST: {} }),
    }, { GET: { summary: `What ${action}ing a ${title.toLowerCase()} takes` }, POST: { summary: `${enabled ? 'Enable' : 'Disable'} a ${title.toLowerCase()}` }, OPTIONS: OPTIONS_RESPONSE });
  }
}
