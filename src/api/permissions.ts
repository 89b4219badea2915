import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden, notAuthenticated } from './errors.ts';
import type { RequestContext } from './context.ts';
import type { ResourceRow } from '../db/database.ts';

/** The methods of one URL, each naming the action of the access policy it needs. */
export type MethodActions = Partial<Record<string, string>>;

/**
 * What a route requires before its handler runs. Every route declares one.
 * - `resource`: a list route (no object in the URL); the handler asks the resource's access
 *   policy with the values it parses (canCreate).
 * - `object`: a route on one object (`:id`). The framework loads the object (404 when missing, 403
 *   when the caller may not see it) and checks, per method, the named action of the resource's
 *   access policy (403 when refused) before the handler runs; the handler reads `request.object`.
 */
export type RoutePermission =
  | { kind: 'public' }
  | { kind: 'authenticated' }
  | { kind: 'superuser' }
  | { kind: 'admin_or_auditor' }
  | { kind: 'resource'; resource: string; action: string }
  | { kind: 'object'; resource: string; actions: MethodActions };

export const PUBLIC: RoutePermission = { kind: 'public' };
export const AUTHENTICATED: RoutePermission = { kind: 'authenticated' };
export const SUPERUSER: RoutePermission = { kind: 'superuser' };
export const resourcePermission = (resource: string, action: string): RoutePermission => ({ kind: 'resource', resource, action });
/**
 * A route on one object of `resource`: each method needs the action named here, and a method not
 * named needs `view` (see object-actions.ts for the actions every policy has).
 */
export const objectPermission = (resource: string, actions: MethodActions = {}): RoutePermission => ({ kind: 'object', resource, actions });

export interface RouteEntry {
  method: string;
  url: string;
  permission: RoutePermission | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    permission?: RoutePermission;
    /** The Allow header sent with every response of the route (see routeMethods). */
    allow?: string;
  }
  interface FastifyInstance {
    /** Every registered route with the permission it declares (see recordRouteTable). */
    routeTable: readonly RouteEntry[];
  }
  interface FastifyRequest {
    ctx: RequestContext;
    /** The object of an `object` route, loaded and authorized before the handler (see route-objects.ts). */
    object: ResourceRow;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Runs before every handler: refuses what the route's declared permission does not allow. */
export function enforceRoutePermission(request: FastifyRequest): void {
  const permission = request.routeOptions.config.permission;
  if (!permission) throw forbidden('This endpoint declares no permission.');
  if (permission.kind === 'public') return;
  const { user, tokenScope } = request.ctx;
  if (!user) throw notAuthenticated();
  if (tokenScope === 'read' && !SAFE_METHODS.has(request.method)) throw forbidden('A read-scoped token cannot change anything.');
  if (permission.kind === 'superuser' && !user.isSuperuser) throw forbidden();
  if (permission.kind === 'admin_or_auditor' && !user.isSuperuser && !user.isSystemAuditor) throw forbidden();
}

/** Keeps app.routeTable: call before any route is registered, so every declaration can be checked. */
export function recordRouteTable(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) table.push({ method, url: route.url, permission: route.config?.permission });
  });
}
