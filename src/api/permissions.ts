import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden, notAuthenticated } from './errors.ts';
import type { RequestContext } from './context.ts';

/**
 * What a route requires before its handler runs. Every route declares one; resource routes
 * name the resource and action, and the handler asks the resource's access policy.
 */
export type RoutePermission =
  | { kind: 'public' }
  | { kind: 'authenticated' }
  | { kind: 'superuser' }
  | { kind: 'admin_or_auditor' }
  | { kind: 'resource'; resource: string; action: string };

export const PUBLIC: RoutePermission = { kind: 'public' };
export const AUTHENTICATED: RoutePermission = { kind: 'authenticated' };
export const SUPERUSER: RoutePermission = { kind: 'superuser' };
export const resourcePermission = (resource: string, action: string): RoutePermission => ({ kind: 'resource', resource, action });

export interface RouteEntry {
  method: string;
  url: string;
  permission: RoutePermission | undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    permission?: RoutePermission;
  }
  interface FastifyInstance {
    /** Every registered route with the permission it declares (see recordRouteTable). */
    routeTable: readonly RouteEntry[];
  }
  interface FastifyRequest {
    ctx: RequestContext;
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
