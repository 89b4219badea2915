/** /job_templates/{id}/instance_groups/: the instance groups a template prefers, in the order they were attached. */
import type { FastifyInstance } from 'fastify';
import { hasObjectRole } from '../../api/access.ts';
import { recordActivity } from '../../activity/record.ts';
import type { Services } from '../../api/context.ts';
import { ApiError, forbidden, notFound, ValidationError } from '../../api/errors.ts';
import { listPage, type Query } from '../../api/list.ts';
import { findResource } from '../../api/resource.ts';
import { routeMethods, visibleObject } from '../../api/resource-routes.ts';
import { listOptions, viewOptions } from '../../api/options.ts';
import { assertTemplateAdmin, jobTemplateAccess } from './job-template-access.ts';
import { resourcePermission } from '../../server/permissions.ts';
import { jobTemplates } from './job-template.resource.ts';

function readLink(body: unknown): { id: number; detach: boolean } {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b !== 'object' || Array.isArray(b)) throw new ApiError(400, { detail: 'Expected a JSON object.' });
  const id = typeof b.id === 'string' && /^\d+$/.test(b.id) ? Number(b.id) : b.id;
  if (typeof id !== 'number' || !Number.isInteger(id) || id < 1 || id > 2_147_483_647) throw ValidationError.field('id', 'A valid integer is required.');
  return { id, detach: b.disassociate === true || b.disassociate === 'true' };
}

export function registerInstanceGroupRoutes(app: FastifyInstance, services: Services, base: string): void {
  const { db } = services;
  const groups = findResource('instance_group');
  routeMethods(app, `${base}instance_groups/`, resourcePermission('job_template', 'instance_groups'), {
    GET: async (request) => {
      const template = await visibleObject(services, request, jobTemplates);
      if (!groups) return { count: 0, next: null, previous: null, results: [] };
      const query = request.query as Query;
      const page = await listPage(db, request.ctx, groups, request.url.split('?')[0], query, (alias, params) =>
        `${alias}.id IN (SELECT instance_group_id FROM job_template_instance_groups WHERE job_template_id = ${params.add(template.id)})`);
      if (query.order_by || query.order) return page;
      // Preference order (the order of attachment) unless another is asked for.
      const positions = new Map(
        (await db.query('SELECT instance_group_id, position FROM job_template_instance_groups WHERE job_template_id = $1', [template.id])).map((r) => [r.instance_group_id, r.position]),
      );
      return { ...page, results: [...page.results].sort((a, b) => (positions.get(a.id) ?? 0) - (positions.get(b.id) ?? 0)) };
    },
    POST: async (request, reply) => {
      const template = await visibleObject(services, request, jobTemplates);
      const link = readLink(request.body);
      await db.transaction(async (tx) => {
        if (!(await tx.query('SELECT 1 FROM instance_groups WHERE id = $1', [link.id])).length) throw notFound();
        await assertTemplateAdmin(request.ctx, tx, template.id);
        if (!link.detach && !(await hasObjectRole(request.ctx, tx, 'instance_group', link.id, 'use_role'))) throw forbidden();
        const changed = link.detach
          ? await tx.query('DELETE FROM job_template_instance_groups WHERE job_template_id = $1 AND instance_group_id = $2 RETURNING 1', [template.id, link.id])
          : await tx.query(
              `INSERT INTO job_template_instance_groups (job_template_id, instance_group_id, position)
               SELECT $1, $2, COALESCE(max(position) + 1, 0) FROM job_template_instance_groups WHERE job_template_id = $1
               ON CONFLICT DO NOTHING RETURNING 1`,
              [template.id, link.id],
            );
        if (!changed.length) return;
        await recordActivity(tx, request.ctx, {
          operation: link.detach ? 'disassociate' : 'associate', object1: 'job_template', object1Id: template.id,
          object2: 'instance_group', object2Id: link.id, association: 'instance_groups', changes: {},
        });
      });
      return reply.code(204).send();
    },
    OPTIONS: async (request) => {
      const template = await visibleObject(services, request, jobTemplates);
      if (!groups) return viewOptions('Instance Groups', 'Instance groups of the job template.');
      return listOptions(groups, request.ctx.tokenScope !== 'read' && (await jobTemplateAccess.canAttach(request.ctx, db, template, 'instance_groups', 0, false)));
    },
  });
}
