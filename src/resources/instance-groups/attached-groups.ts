import type { FastifyInstance } from 'fastify';
import { hasObjectRole } from '../../api/access.ts';
import { recordActivity } from '../../activity/record.ts';
import type { Services } from '../../api/context.ts';
import { forbidden, notFound } from '../../api/errors.ts';
import { AttachBody, linkOf } from '../../api/action-schemas.ts';
import { validBody } from '../../api/route-schemas.ts';
import { listPage, type Query } from '../../api/list.ts';
import { type Resource } from '../../api/resource.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { allows } from '../../api/route-objects.ts';
import { listOptions, viewOptions } from '../../api/options.ts';
import { relatedRouteSchemas } from '../../api/field-schemas.ts';
import { objectPermission } from '../../api/permissions.ts';

/** An object that prefers instance groups in order (job template, inventory, organization). */
export interface GroupOwner {
  resource: Resource;
  /** The link table and its column naming the owner. */
  table: string;
  column: string;
  /** The action of the owner's access policy that may change its groups. */
  changeAction: string;
}

/**
 * {owner}/instance_groups/: the groups an object prefers, listed in the order they were attached
 * (the order the task manager tries them); POST {id} attaches (needs use on the group), POST
 * {id, disassociate: true} detaches.
 */
export function registerAttachedGroupRoutes(app: FastifyInstance, services: Services, owner: GroupOwner): void {
  const { db } = services;
  const groups = services.resources.find('instance_group');
  const { table, column, resource } = owner;
  routeMethods(app, `${resource.listPath}:id/instance_groups/`, objectPermission(resource.name, { POST: owner.changeAction }), {
    GET: async (request) => {
      const row = request.object;
      if (!groups) return { count: 0, next: null, previous: null, results: [] };
      const query = request.query as Query;
      const page = await listPage(db, request.ctx, groups, request.url.split('?')[0], query, (alias, params) =>
        `${alias}.id IN (SELECT instance_group_id FROM ${table} WHERE ${column} = ${params.add(row.id)})`);
      if (query.order_by || query.order) return page;
      const links = await db.query<{ instance_group_id: number; position: number }>(`SELECT instance_group_id, position FROM ${table} WHERE ${column} = $1`, [row.id]);
      const positions = new Map<unknown, number>(links.map((r) => [r.instance_group_id, r.position]));
      return { ...page, results: [...page.results].sort((a, b) => (positions.get(a.id) ?? 0) - (positions.get(b.id) ?? 0)) };
    },
    POST: async (request, reply) => {
      const row = request.object;
      const link = linkOf(validBody(request, AttachBody))!;
      await db.transaction(async (tx) => {
        if (!(await tx.query('SELECT 1 FROM instance_groups WHERE id = $1', [link.id])).length) throw notFound();
        if (!link.disassociate && !(await hasObjectRole(request.ctx, tx, 'instance_group', link.id, 'use_role'))) throw forbidden();
        const changed = link.disassociate
          ? await tx.query(`DELETE FROM ${table} WHERE ${column} = $1 AND instance_group_id = $2 RETURNING 1`, [row.id, link.id])
          : await tx.query(
              `INSERT INTO ${table} (${column}, instance_group_id, position)
               SELECT $1, $2, COALESCE(max(position) + 1, 0) FROM ${table} WHERE ${column} = $1
               ON CONFLICT DO NOTHING RETURNING 1`,
              [row.id, link.id],
            );
        if (!changed.length) return;
        await recordActivity(tx, request.ctx, {
          operation: link.disassociate ? 'disassociate' : 'associate', object1: resource.name, object1Id: row.id,
          object2: 'instance_group', object2Id: link.id, association: 'instance_groups', changes: {},
        });
      });
      return reply.code(204).send();
    },
    OPTIONS: async (request) => {
      const row = request.object;
      if (!groups) return viewOptions('Instance Groups', `Instance groups of the ${resource.name.replace(/_/g, ' ')}.`);
      return listOptions(services.resources, groups, request.ctx.tokenScope !== 'read' && (await allows(resource, owner.changeAction, request.ctx, db, row)));
    },
  }, groups && { ...relatedRouteSchemas(groups, { attach: true, create: false, fixed: [] }), POST: { summary: 'Attach or detach an instance group', body: AttachBody, checkBody: true } });
}
