import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { TSchema } from 'typebox';
import { readTogether, type ResourceRow, type Row } from '../db/database.ts';
import type { RequestContext, Services } from './context.ts';
import { associate, createObject, deleteObject, loadRow, parseRequestBody, updateObject } from './crud.ts';
import { createThenLink } from './create-then-link.ts';
import { ApiError, forbidden, methodNotAllowed, ValidationError } from './errors.ts';
import { listAll, listPage, type Query } from './list.ts';
import { detailOptions, listOptions } from './options.ts';
import type { ListExport, Resource } from './resource.ts';
import { serializeRow } from './serialize.ts';
import { objectPermission, resourcePermission, type MethodActions, type RoutePermission } from './permissions.ts';
import { checkedBody, schemaOptions, type MethodSchemas } from './route-schemas.ts';
import { LinkBody, linkOf } from './action-schemas.ts';
import { bodySchema, bodyWords, listQuerySchema, OPTIONS_RESPONSE, pageSchema, relatedRouteSchemas, resourceRouteSchemas } from './field-schemas.ts';

/**
 * The request of a route's handler. On an `object` route, `object` is the object of the URL,
 * loaded and authorized before the handler runs (route-objects.ts), typed as the resource's row:
 * `routeMethods<JobTemplateRow>(app, url, objectPermission('job_template', ...), handlers)`.
 */
export type ObjectRequest<R extends ResourceRow = ResourceRow> = FastifyRequest & { object: R };
/** What a route declares besides its permission (see FastifyContextConfig). */
export type RouteSettings = Pick<FastifyContextConfig, 'csrfExempt' | 'secondFactorExempt'>;
type Handler<R extends ResourceRow = ResourceRow> = (request: ObjectRequest<R>, reply: FastifyReply) => Promise<unknown>;

const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** The order Django REST framework lists methods in. */
const ALLOW_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/**
 * The Allow header of a URL: every method it answers (HEAD with GET), whoever asks, as AWX's views
 * send it on every response. What the caller may do shows in OPTIONS `actions` and user_capabilities.
 */
function allowHeader(methods: readonly string[]): string {
  const answered = new Set([...methods, ...(methods.includes('GET') ? ['HEAD'] : [])]);
  return ALLOW_ORDER.filter((m) => answered.has(m)).join(', ');
}

/** The action of each handled method: the one declared, `view` for the others. */
function actionsOfHandled(declared: MethodActions, methods: readonly string[]): MethodActions {
  return Object.fromEntries(methods.map((method) => [method, declared[method] ?? 'view']));
}

/**
 * One URL answering several methods, with 405 and an Allow header for the rest. Each method may
 * have a schema (route-schemas.ts): it documents the method in the OpenAPI document.
 */
export function routeMethods<R extends ResourceRow = ResourceRow>(
  app: FastifyInstance,
  url: string,
  declared: RoutePermission,
  handlers: Partial<Record<string, Handler<R>>>,
  schemas: MethodSchemas = {},
  settings: RouteSettings = {},
) {
  const allow = allowHeader(Object.keys(handlers));
  if (handlers.POST && handlers.OPTIONS) handlers = { ...handlers, OPTIONS: withPostAction(handlers.OPTIONS) };
  const permission = declared.kind === 'object' ? { ...declared, actions: actionsOfHandled(declared.actions, Object.keys(handlers)) } : declared;
  // One route per method, so each has its own schema; HEAD follows GET (Fastify drops the body).
  for (const [method, handler] of Object.entries(handlers)) {
    const { checkedBody, ...options } = schemaOptions(schemas[method]);
    app.route({ method, url, config: { ...settings, permission, checkedBody, allow }, ...options, handler: handler! as unknown as RouteHandlerMethod });
  }
  const refused = ALL_METHODS.filter((method) => !handlers[method]);
  if (!refused.length) return;
  app.route({
    method: refused,
    url,
    // A method the URL does not answer is refused before any object is looked up.
    config: { ...settings, permission: declared.kind === 'object' ? { ...declared, actions: {} } : declared, allow },
    schema: { hide: true },
    handler: async (request) => {
      throw methodNotAllowed(request.method);
    },
  });
}

/**
 * An endpoint that takes POST describes it under actions.POST in OPTIONS, empty when the body has no
 * fields of its own (AWX's views without serializer fields do the same): awxkit reads actions.POST of
 * every such endpoint to build its arguments and to export.
 */
function withPostAction<R extends ResourceRow>(options: Handler<R>): Handler<R> {
  return async function (this: unknown, request, reply) {
    const body = await options.call(this as never, request, reply);
    if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
    // A description with actions already says what the caller may do (a list leaves POST out for one who may not create).
    if ('actions' in body) return body;
    return { ...body, actions: { POST: {} } };
  } as Handler<R>;
}

/**
 * What a related list's POST checks up front: a body with an id links (LinkBody); one without
 * creates an object there where the list creates with its declarations (`creates`: the target's
 * create body, less what the list fixes or its create hook fills in), and names no object anywhere else.
 */
function checkingLink(schemas: MethodSchemas, creates?: { target: Resource; fixed: readonly string[] }): MethodSchemas {
  if (!schemas.POST) return schemas;
  if (!creates) return { ...schemas, POST: { ...schemas.POST, checkBody: LinkBody } };
  const checked = { type: 'object', properties: LinkBody.properties, if: { required: ['id'] }, else: bodySchema(creates.target, 'create', creates.fixed), additionalProperties: true };
  return { ...schemas, POST: { ...schemas.POST, checkBody: checked as TSchema, fieldWords: bodyWords(creates.target) } };
}

const DEFAULT_EXPORT_ROWS = 100_000;

/** ?format=<export>: every matching row the caller may see, in the list's order, as one download. */
async function sendExport(services: Services, request: FastifyRequest, reply: FastifyReply, resource: Resource, download: ListExport) {
  const max = download.maxRows ?? DEFAULT_EXPORT_ROWS;
  const rows = await listAll(services.db, request.ctx, resource, request.query as Query, max + 1);
  if (rows.length > max) {
    rows.length = max;
    reply.header('X-Export-Truncated', 'true');
  }
  if (download.filename) reply.header('Content-Disposition', `attachment; filename="${download.filename}"`);
  return reply.type(download.contentType).send(download.render(rows));
}

/** Registers the conventional endpoints a resource declaration implies. */
export function registerResourceRoutes(app: FastifyInstance, services: Services, resource: Resource): void {
  const { db } = services;
  const list = resource.listPath;
  const detail = `${list}:id/`;
  const schemas = resourceRouteSchemas(resource);

  routeMethods(app, list, resourcePermission(resource.name, 'crud'), {
    GET: async (request, reply) => {
      const refusal = resource.access.listRefusal?.(request.ctx);
      if (refusal) throw forbidden(refusal);
      const query = request.query as Query;
      const format = [query.format].flat().pop();
      const download = format === undefined ? undefined : resource.exports[format];
      if (download) return sendExport(services, request, reply, resource, download);
      return listPage(db, request.ctx, resource, list, query);
    },
    OPTIONS: async (request) =>
      listOptions(services.resources, resource, resource.operations.create && request.ctx.tokenScope !== 'read' && (await resource.access.canCreate(request.ctx, db, {}))),
    ...(resource.operations.create && {
      POST: async (request, reply) => {
        const { body, refused } = checkedBody(request);
        const values = await parseRequestBody(resource, body, 'create', null, (v) => resource.access.canCreate(request.ctx, db, v), refused);
        const row = resource.create
          ? await resource.create(services, request.ctx, values)
          : await db.transaction((tx) => createObject(tx, request.ctx, resource, values));
        return reply.code(201).send(await serializeRow(db, request.ctx, resource, row));
      },
    }),
  }, schemas.list);

  const update = (mode: 'update' | 'replace') => async (request: FastifyRequest) => {
    const existing = request.object;
    const { body, refused } = checkedBody(request);
    const values = await parseRequestBody(resource, body, mode, existing, (v) => resource.access.canChange(request.ctx, db, existing, v), refused);
    const row = await db.transaction(async (tx) => updateObject(tx, request.ctx, resource, await loadRow(tx, resource, existing.id, true), values));
    return serializeRow(db, request.ctx, resource, row);
  };
  routeMethods(app, detail, objectPermission(resource.name, { PUT: 'edit', PATCH: 'edit', DELETE: 'edit' }), {
    GET: async (request) => {
      // What only the object's page shows is read beside the rest, and follows it.
      const shownOnItsPage: Row = {};
      const [out] = await readTogether(db, [
        () => serializeRow(db, request.ctx, resource, request.object),
        async () => resource.detail?.(db, request.object, shownOnItsPage),
      ] as const);
      return Object.assign(out, shownOnItsPage);
    },
    OPTIONS: async (request) => {
      const row = request.object;
      const canChange = resource.operations.update && request.ctx.tokenScope !== 'read' && (await resource.access.canChange(request.ctx, db, row, {}));
      return detailOptions(services.resources, resource, canChange);
    },
    ...(resource.operations.update && { PATCH: update('update'), PUT: update('replace') }),
    ...(resource.operations.delete && {
      DELETE: async (request, reply) => {
        const existing = request.object;
        await db.transaction(async (tx) => deleteObject(tx, request.ctx, resource, await loadRow(tx, resource, existing.id, true)));
        return reply.code(204).send();
      },
    }),
  }, schemas.detail);

  for (const [name, relation] of Object.entries(resource.related)) {
    const target = services.resources.get(relation.target);
    const path = `${list}:id/${relation.segment ?? name}/`;
    const scope = (parentId: number) => (alias: string, params: { add(v: unknown): string }) =>
      `${alias}.id IN (SELECT ${relation.targetColumn} FROM ${relation.from} WHERE ${relation.parentColumn} = ${params.add(parentId)})`;
    // Target id 0: whether the caller may attach anything at all here, or create something.
    const mayAdd = async (ctx: RequestContext, parent: ResourceRow) =>
      ctx.tokenScope !== 'read' &&
      ((relation.attachable && (await resource.access.canAttach(ctx, db, parent, name, 0, false))) ||
        (relation.createWith !== undefined && (await target.access.canCreate(ctx, db, { [relation.createWith]: parent.id, ...relation.createValues }))));
    const createHook = relation.create ?? (relation.createAndLink && createThenLink(resource, name, relation));
    // What the list fills in on the objects it creates, which their body need not give.
    const fixedFields = createHook
      ? [...(relation.createFills ?? [])]
      : relation.createWith ? [relation.createWith, ...Object.keys(relation.createValues ?? {})] : [];
    const createsHere = createHook !== undefined || relation.createWith !== undefined;
    routeMethods(app, path, objectPermission(resource.name, { POST: 'edit' }), {
      GET: async (request) => {
        const parent = request.object;
        const url = request.url.split('?')[0];
        const position = relation.positionColumn;
        const order = position
          ? (alias: string, params: { add(v: unknown): string }) =>
              `(SELECT ${position} FROM ${relation.from} WHERE ${relation.parentColumn} = ${params.add(parent.id)} AND ${relation.targetColumn} = ${alias}.id)`
          : undefined;
        return listPage(db, request.ctx, target, url, request.query as Query, scope(parent.id), order);
      },
      OPTIONS: async (request) => listOptions(services.resources, target, await mayAdd(request.ctx, request.object)),
      ...((relation.attachable || relation.createWith || createHook) && {
        POST: async (request, reply) => {
          const parent = request.object;
          // A caller who may add nothing here learns nothing about the body (permission before validation, as AWX).
          if (request.validationError && (relation.attachable || relation.createWith) && !(await mayAdd(request.ctx, parent))) throw forbidden();
          const { body, refused } = checkedBody(request);
          const creates = !('id' in body) && createsHere;
          if (!creates && Object.keys(refused).length) throw new ValidationError(refused);
          const link = linkOf(body);
          if (link) {
            if (!relation.attachable) throw new ApiError(400, { detail: `Objects cannot be attached to ${name}; create them here instead.` });
            await db.transaction(async (tx) => associate(tx, request.ctx, resource, await loadRow(tx, resource, parent.id, true), name, link.id, link.disassociate));
            return reply.code(204).send();
          }
          if (createHook) {
            const created = await db.transaction(async (tx) => createHook(tx, request.ctx, await loadRow(tx, resource, parent.id, true), body, refused));
            return created ? reply.code(201).send(await serializeRow(db, request.ctx, target, created)) : reply.code(204).send();
          }
          if (!relation.createWith) throw ValidationError.field('id', 'This field is required.');
          // The link to the parent and the relation's own values hold whatever the body says, even on read-only fields.
          const fixed = { [relation.createWith]: parent.id, ...relation.createValues };
          const values = await parseRequestBody(target, { ...body, ...fixed }, 'create', null, (v) =>
            target.access.canCreate(request.ctx, db, { ...v, ...fixed }), refused,
          );
          Object.assign(values, fixed);
          const row = await db.transaction((tx) => createObject(tx, request.ctx, target, values));
          return reply.code(201).send(await serializeRow(db, request.ctx, target, row));
        },
      }),
    }, checkingLink(relatedRouteSchemas(target, { attach: relation.attachable, create: createsHere, fixed: fixedFields }),
      createsHere ? { target, fixed: fixedFields } : undefined));
  }

  if (!resource.allFields.created) return;
  const activity = services.resources.get('activity_stream');
  routeMethods(app, `${list}:id/activity_stream/`, objectPermission(resource.name), {
    GET: async (request) => {
      const parent = request.object;
      const url = request.url.split('?')[0];
      return listPage(db, request.ctx, activity, url, request.query as Query, (alias, params) => {
        const type = params.add(resource.name);
        const id = params.add(parent.id);
        return `((${alias}.object1 = ${type} AND ${alias}.object1_id = ${id}) OR (${alias}.object2 = ${type} AND ${alias}.object2_id = ${id}))`;
      });
    },
    OPTIONS: async () => listOptions(services.resources, activity, false),
  }, { GET: { summary: 'Activity stream of the object', querystring: listQuerySchema(activity), response: { 200: pageSchema(activity) } }, OPTIONS: OPTIONS_RESPONSE });
}
