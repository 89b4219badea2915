/**
 * AWX's copy/ on one object: GET answers whether the caller may copy it, POST {name} makes the copy
 * (201 with it). The copy carries the object's writable fields as stored, under the new name;
 * what else goes with it (an inventory's hosts and groups) is the resource's to say.
 */
import type { FastifyInstance } from 'fastify';
import { copyRouteSchemas, CopyBody } from './action-schemas.ts';
import type { RequestContext, Services } from './context.ts';
import { createObject, loadRow } from './crud.ts';
import { ValidationError } from './errors.ts';
import { copyOptions } from './options.ts';
import { objectPermission } from './permissions.ts';
import type { Resource, Values } from './resource.ts';
import { routeMethods } from './resource-routes.ts';
import { allows } from './route-objects.ts';
import { validBody } from './route-schemas.ts';
import { serializeRow } from './serialize.ts';
import type { Queryable, ResourceRow } from '../db/database.ts';

/** The values a copy of `row` is created with: every writable field but those discarded (AWX's FIELDS_TO_DISCARD_AT_COPY). */
export function copiedValues(resource: Resource, row: ResourceRow, discard: readonly string[] = []): Values {
  const values: Values = {};
  for (const [name, field] of Object.entries(resource.fields)) {
    if (!field.readOnly && !field.secret && !discard.includes(name)) values[name] = row[field.column];
  }
  return values;
}

export interface CopyRule {
  /** Fields the copy does not take (they are made again, as a git project's local_path). */
  discard?: readonly string[];
  /** Adjusts the copy's values from the original (kept inside the copy's transaction). */
  values?(original: ResourceRow, values: Values): Values;
  /** What goes with the copy once it exists (an inventory's hosts and groups), in the same transaction. */
  after?(tx: Queryable, ctx: RequestContext, original: ResourceRow, copy: ResourceRow): Promise<void>;
}

/** Whether the caller may create the copy (of the resource named `name`): the `copy` action of policies that use registerCopyRoute. */
export const mayCreateCopy = (name: string, rule: CopyRule = {}) => (ctx: RequestContext, tx: Queryable, row: ResourceRow) => {
  const resource = ctx.service.resources.get(name);
  const values = copiedValues(resource, row, rule.discard);
  return resource.access.canCreate(ctx, tx, rule.values ? rule.values(row, values) : values);
};

/** GET, POST /<resources>/{id}/copy/: the policy's `copy` action decides (see mayCreateCopy). */
export function registerCopyRoute(app: FastifyInstance, services: Services, resource: Resource, rule: CopyRule = {}): void {
  const { db } = services;
  const what = resource.label.replace(/ List$/, '');
  routeMethods(app, `${resource.listPath}:id/copy/`, objectPermission(resource.name, { POST: 'copy' }), {
    GET: async (request) => ({ can_copy: await allows(resource, 'copy', request.ctx, db, request.object) }),
    POST: async (request, reply) => {
      const { name } = validBody(request, CopyBody);
      if (name === request.object.name) {
        throw new ValidationError({ __all__: [`The original object is already named ${name}, a copy from it cannot have the same name.`] });
      }
      const copy = await db.transaction(async (tx) => {
        const original = await loadRow(tx, resource, request.object.id);
        const values = { ...copiedValues(resource, original, rule.discard), name };
        const created = await createObject(tx, request.ctx, resource, rule.values ? rule.values(original, values) : values);
        await rule.after?.(tx, request.ctx, original, created);
        return loadRow(tx, resource, created.id);
      });
      return reply.code(201).send(await serializeRow(db, request.ctx, resource, copy));
    },
    OPTIONS: async () => copyOptions(`${what} Copy`, `GET: whether the ${what.toLowerCase()} can be copied. POST {name}: copies it.`),
  }, copyRouteSchemas(what.toLowerCase()));
}
