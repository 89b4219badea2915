import type { Database } from '../db/database.ts';
import type { Settings } from '../config/settings/store.ts';
import type { EnvConfig } from '../config/env.ts';
import type { RunKinds } from '../runs/run-kind.ts';
import type { LaunchService } from '../runs/launch.ts';
import type { Resource } from './resource.ts';
import type { SsoMethod } from '../auth/external/sso-methods.ts';
import type { VerifiedPasswords } from '../auth/basic.ts';
import type { OidcDiscovery } from '../auth/sso/oidc.ts';
import type { ReceivingRules } from '../resources/event-rules/receiving-rules.ts';
import type { ServiceLogger } from './logger.ts';

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

/** What a request's policies, hooks and records read of the service it reaches. */
export type ServiceView = Pick<Services, 'settings' | 'env' | 'caches'>;

/** The process-wide services every handler may use. */
export interface Services {
  db: Database;
  settings: Settings;
  env: EnvConfig;
  version: string;
  /** Identifies this installation (all nodes sharing one database). */
  installUuid: string;
  /** The resources of the composition root, in its order (each also known by name: getResource). */
  resources: readonly Resource[];
  /** The run kinds of the composition root, by name. */
  runKinds: RunKinds;
  /** Every launch of a run goes through it (its gates in their order). */
  launches: LaunchService;
  /** The browser sign-in methods GET /api/v2/auth/ lists: the composition root's SSO_METHODS. */
  ssoMethods: readonly SsoMethod[];
  /** What this service keeps in memory between requests; nothing of it is shared with another service in the process. */
  caches: ServiceCaches;
  /** Where the background loops report what went wrong. */
  logger: ServiceLogger;
}

export interface ServiceCaches {
  /** Credentials that verified against the stored hash (Basic auth and the login form skip argon2 on a repeat). */
  passwords: VerifiedPasswords;
  /** The OIDC provider's discovered configuration. */
  oidcDiscovery: OidcDiscovery;
  /** Event rules by receiving webhook path. */
  receivingRules: ReceivingRules;
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
