import type { FastifyRequest } from 'fastify';
import type { RequestContext, Services, ResourceSet } from './context.ts';
import type { Queryable, ResourceRow } from '../db/database.ts';
import type { ObjectAction } from './access.ts';
import { forbidden } from './errors.ts';
import { isVisible } from './list.ts';
import { loadByKeyOr404 } from './named-url.ts';
import type { Resource } from './resource.ts';
import type { RouteEntry } from './permissions.ts';

const always: ObjectAction = () => true;

/**
 * The action `name` of the resource's policy. Every policy also has
 * - view: the caller sees the object (checked for every object route before its action);
 * - change: the caller may change the object (canChange with no values);
 * - edit: the handler asks canChange, canDelete, canAttach or canCreate with the values it parses
 *   (crud.ts), since the answer depends on them.
 */
function actionOf(resource: Resource, name: string): ObjectAction | undefined {
  if (name === 'view' || name === 'edit') return always;
  if (name === 'change') return (ctx, tx, row) => resource.access.canChange(ctx, tx, row, {});
  return resource.access.actions?.[name];
}

/** Whether the caller may do `action` with the object (for the GET of an action route: can_cancel, can_update...). */
export async function allows(resource: Resource, action: string, ctx: RequestContext, tx: Queryable, row: ResourceRow): Promise<boolean> {
  return actionOf(resource, action)!(ctx, tx, row);
}

const idParam = (request: FastifyRequest) => (request.params as { id: string }).id;

/** Loads the object named in the URL, 404 when missing, 403 when the caller may not see it. */
export async function visibleObject<R extends ResourceRow = ResourceRow>(services: Services, request: FastifyRequest, resource: Resource): Promise<R> {
  const row = await loadByKeyOr404<R>(services.db, services.resources, resource, idParam(request));
  if (!(await isVisible(services.db, request.ctx, resource, row.id))) throw forbidden();
  return row;
}

/**
 * Before the handler of an `object` route: loads the object and checks the action its method
 * names, leaving the object in request.object. Other routes are left alone.
 */
export async function authorizeRouteObject(services: Services, request: FastifyRequest): Promise<void> {
  const permission = request.routeOptions.config.permission;
  if (permission?.kind !== 'object') return;
  const actionName = permission.actions[request.method === 'HEAD' ? 'GET' : request.method];
  if (!actionName) return;
  const resource = services.resources.get(permission.resource);
  const row = await visibleObject(services, request, resource);
  if (!(await actionOf(resource, actionName)!(request.ctx, services.db, row))) throw forbidden();
  request.object = row;
}

/**
 * Every action named by a route exists in its resource's policy (of `resources`): answers the routes
 * that name an unknown resource or action (buildApp refuses to start with any).
 */
export function unknownRouteActions(resources: ResourceSet, routes: readonly RouteEntry[]): string[] {
  const problems: string[] = [];
  for (const { method, url, permission } of routes) {
    if (permission?.kind !== 'object' && permission?.kind !== 'resource') continue;
    const resource = resources.find(permission.resource);
    if (!resource) problems.push(`${method} ${url}: no resource ${permission.resource}`);
    else if (permission.kind === 'object') {
      const action = permission.actions[method === 'HEAD' ? 'GET' : method];
      if (action && !actionOf(resource, action)) problems.push(`${method} ${url}: ${permission.resource} has no action ${action}`);
    }
  }
  return problems;
}
