import type { Queryable, ResourceRow } from '../db/database.ts';
import type { RequestContext } from './context.ts';
import { associate, createObject, parseRequestBody } from './crud.ts';
import type { FieldErrors } from './errors.ts';
import type { Relation, Resource } from './resource.ts';

type CreateHook = NonNullable<Relation['create']>;

/**
 * The create hook of a list declaring `createAndLink`: as AWX's SubListCreateAttachDetachAPIView's
 * attach() without an id, the object is created with the target's own rules, then linked to the
 * parent with the list's (awx/api/generics.py). Both happen in the request's transaction, so a
 * refused link (403) or an invalid one (400) leaves no object behind, where AWX deletes it after.
 */
export function createThenLink(owner: Resource, name: string, relation: Relation): CreateHook {
  return async (tx: Queryable, ctx: RequestContext, parent: ResourceRow, body: Record<string, unknown>, refused: FieldErrors) => {
    const target = ctx.service.resources.get(relation.target);
    const defaults = (await relation.createAndLink?.defaults?.(tx, parent)) ?? {};
    // A caller who may neither link here nor create such an object learns nothing about the body (permission before validation).
    const values = await parseRequestBody(target, { ...defaults, ...body }, 'create', null, async (v) =>
      (await owner.access.canAttach(ctx, tx, parent, name, 0, false)) && target.access.canCreate(ctx, tx, v), refused,
    );
    const row = await createObject(tx, ctx, target, values);
    await associate(tx, ctx, owner, parent, name, row.id, false);
    return row;
  };
}
