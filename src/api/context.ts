import type { Database } from '../db/database.ts';
import type { Settings } from '../config/settings/settings.ts';
import type { EnvConfig } from '../config/env.ts';
import type { ResourceSet as SetOf } from './resource-set.ts';
import type { Resource } from './resource.ts';

/** The resources of a composition (src/api/resource-set.ts), as Services and ServiceView hold them. */
export type ResourceSet = SetOf<Resource>;

export interface CurrentUser {
  id: number;
  username: string;
  isSuperuser: boolean;
  isSystemAuditor: boolean;
}

export type AuthMethod = 'basic' | 'session' | 'token';

/**
 * Who is asking and through what. Handlers and access policies read only this, so new ways to
 * authenticate fill it in without touching them.
 */
export interface RequestContext {
  user: CurrentUser | null;
  authMethod: AuthMethod | null;
  /** OAuth2 token scope; null for sessions and basic auth, which may do everything the user may. */
  tokenScope: 'read' | 'write' | null;
  /** The service asked: policies, hooks and records read its settings and node name here. */
  service: ServiceView;
  /** The client's address, for a request (launch policies see it); absent for what the service does itself. */
  clientIp?: string;
}

/** What a request's policies, hooks and records read of the service it reaches: its settings, node name and resources. */
export type ServiceView = Pick<Services, 'settings' | 'env' | 'resources'>;

/**
 * What the resource framework needs of the service: storage, configuration and the resources of
 * its composition. The composition root adds what runs need (RunServices, src/runs/run-services.ts).
 */
export interface Services {
  db: Database;
  settings: Settings;
  env: EnvConfig;
  version: string;
  /** Identifies this installation (all nodes sharing one database). */
  installUuid: string;
  /** The resources of the composition root, in its order, each known by name. */
  resources: ResourceSet;
}

/** A caller of `service`. */
export const callerIn = (
  service: ServiceView,
  user: CurrentUser | null,
  authMethod: AuthMethod | null = null,
  tokenScope: RequestContext['tokenScope'] = null,
): RequestContext => ({ user, authMethod, tokenScope, service });

/** A caller not (yet) authenticated. */
export const anonymousIn = (service: ServiceView): RequestContext => callerIn(service, null);

/** The installer, management commands and the service itself acting with full rights; recorded as no actor. */
export const systemContextIn = (service: ServiceView): RequestContext => ({
  user: { id: 0, username: '', isSuperuser: true, isSystemAuditor: false },
  authMethod: null,
  tokenScope: null,
  service,
});

/** The user id to record as actor, null for the system. */
export const actorId = (ctx: RequestContext): number | null => (ctx.user && ctx.user.id > 0 ? ctx.user.id : null);
