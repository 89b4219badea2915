import type { Database } from '../db/database.ts';
import type { Settings } from '../config/settings/settings.ts';
import type { EnvConfig } from '../config/env.ts';
import type { ResourceSet as SetOf } from './resource-set.ts';
import type { Resource } from './resource.ts';
import type { ServiceLogger } from './logger.ts';
import type { LogShipper } from '../logging/shipper.ts';
import type { Tracing } from '../telemetry/tracing.ts';

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
  /**
   * A session that must still pass its second factor: it reaches only the routes that say so
   * (secondFactorExempt: login, logout, me, config and the WebAuthn ceremonies).
   */
  secondFactorPending?: boolean;
}

/** What a request's policies, hooks and records read of the service it reaches: its settings, node name, resources and caches. */
export type ServiceView = Pick<Services, 'settings' | 'env' | 'resources' | 'caches'>;

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
  /** The browser sign-in methods GET /api/v2/auth/ lists: the composition root's SSO_METHODS. */
  ssoMethods: readonly SsoMethod[];
  /** What this service keeps in memory between requests; nothing of it is shared with another service in the process. */
  caches: ServiceCaches;
  /** Where the background loops report what went wrong. */
  logger: ServiceLogger;
  /** Sends records to the external log aggregator (LOG_AGGREGATOR_*, docs/logging.md). */
  logShipper: LogShipper;
  /** The service's traces (src/telemetry/tracing.ts, docs/observability.md). */
  tracing: Tracing;
}

/**
 * What one service keeps in memory between requests. Each owner declares its entry where it is
 * defined (`declare module` of this file), so the framework names none of them; src/composition/caches.ts
 * makes them.
 */
export interface ServiceCaches {}

/** One entry of GET /api/v2/auth/ (AWX's AuthView). */
export interface SsoEntry {
  login_url: string;
  /** The absolute callback address to register with the provider. */
  complete_url: string;
  /** SAML: where the service provider metadata is served. */
  metadata_url?: string;
  /** A name for the button (AWX has none; the console falls back to the key). */
  name?: string;
}

/** A browser sign-in method (src/auth/external/sso-methods.ts). */
export interface SsoMethod {
  /** The entries of the method, keyed by backend name ('saml:<idp>' for each enabled SAML IdP); none when its settings do not enable it. */
  entries(services: Services, baseUrl: string): Record<string, SsoEntry>;
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
