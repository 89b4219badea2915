/**
 * GET /sso/login/<backend>/ (to the provider) and GET /sso/complete/<backend>/ (back from it) for
 * Generic OIDC and the social providers. Every failure sends the browser to the login page with a
 * message of our own and is audited with a reason; nothing the provider says is echoed.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as client from 'openid-client';
import type { Services } from '../../api/context.ts';
import { PUBLIC } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { clientOf } from '../../audit/record.ts';
import { ExternalSignInRefused, recordExternalLoginFailure } from '../external/external-user.ts';
import type { SsoEntry, SsoMethod } from '../external/sso-methods.ts';
import { completeSsoLogin, failSsoLogin } from '../external/sso-session.ts';
import { safeNext } from '../login-routes.ts';
import type { ClaimMap } from '../../config/settings/claim-map.ts';
import { callbackUrl, ssoCompletePath, ssoLoginPath } from './callback-url.ts';
import { newCodeVerifier, OIDC_BACKEND, oidcAuthorizationUrl, oidcClaims, oidcConfigured, userFromClaims } from './oidc.ts';
import { ProviderUnreachable } from './provider-fetch.ts';
import { socialIdentity } from './social-identity.ts';
import { ProviderAnswerRefused, SOCIAL_PROVIDERS } from './social-providers.ts';
import { socialConfigured, socialLoginUrl, socialProfile } from './social.ts';
import { beginLogin, consumeLogin } from './sso-state.ts';

type Query = Record<string, unknown>;
const one = (v: unknown) => (Array.isArray(v) ? v[0] : v);

interface Flow {
  backend: string;
  name: string;
  configured(services: Services): boolean;
  /** The provider's URL for a new sign-in; stores the state. */
  start(services: Services, request: FastifyRequest, reply: FastifyReply, next: string | null): Promise<string>;
  /** The identity an answer proves (state already checked). */
  finish(services: Services, request: FastifyRequest, code: string, login: { nonce: string; codeVerifier: string; state: string }): Promise<Parameters<typeof completeSsoLogin>[3]>;
}

const oidcFlow: Flow = {
  backend: OIDC_BACKEND,
  name: 'OpenID Connect',
  configured: oidcConfigured,
  async start(services, request, reply, next) {
    const codeVerifier = newCodeVerifier();
    const redirectUri = callbackUrl(services, request, OIDC_BACKEND);
    // Discovery first, so an unreachable provider leaves no state behind.
    const probe = await oidcAuthorizationUrl(services, { redirectUri, state: 'probe', nonce: 'probe', codeVerifier });
    const { state, nonce } = await beginLogin(services, reply, OIDC_BACKEND, { codeVerifier, next });
    probe.searchParams.set('state', state);
    probe.searchParams.set('nonce', nonce);
    return probe.toString();
  },
  async finish(services, request, _code, login) {
    const redirectUri = callbackUrl(services, request, OIDC_BACKEND);
    const current = new URL(request.url, redirectUri);
    const claims = await oidcClaims(services, current, { redirectUri, ...login });
    const profile = userFromClaims(claims, services.settings.get<ClaimMap>('SOCIAL_AUTH_OIDC_CLAIM_MAP'));
    return socialIdentity(services, OIDC_BACKEND, 'OIDC', profile);
  },
};

const socialFlows: Flow[] = SOCIAL_PROVIDERS.map((provider) => ({
  backend: provider.slug,
  name: provider.name,
  configured: (services) => socialConfigured(services, provider),
  async start(services, request, reply, next) {
    const { state } = await beginLogin(services, reply, provider.slug, { next });
    return socialLoginUrl(services, provider, callbackUrl(services, request, provider.slug), state);
  },
  async finish(services, request, code) {
    const profile = await socialProfile(services, provider, code, callbackUrl(services, request, provider.slug));
    return socialIdentity(services, provider.slug, provider.prefix, profile);
  },
}));

export const SSO_FLOWS: readonly Flow[] = [oidcFlow, ...socialFlows];

/** Why a provider exchange failed, for the audit log (never the provider's words). */
function failureOf(err: unknown, name: string): { reason: string; message: string } | null {
  // openid-client wraps what its fetch throws.
  const cause = err instanceof Error && err.cause instanceof ProviderUnreachable ? err.cause : err;
  if (cause instanceof ProviderUnreachable) return { reason: 'provider_unreachable', message: `The ${name} provider could not be reached. Try again later or ask an administrator.` };
  if (err instanceof ProviderAnswerRefused) return { reason: 'provider_answer_refused', message: `${name} sign-in failed: ${err.message}` };
  if (err instanceof client.ClientError || err instanceof client.ResponseBodyError || err instanceof client.AuthorizationResponseError || err instanceof client.WWWAuthenticateChallengeError) {
    const code = (err as { code?: string }).code ?? err.name;
    return { reason: `verification_failed:${code}`.slice(0, 120), message: `The ${name} provider's answer could not be verified. Try signing in again.` };
  }
  return null;
}

async function login(services: Services, flow: Flow, request: FastifyRequest, reply: FastifyReply) {
  if (!flow.configured(services)) return failSsoLogin(reply, `${flow.name} sign-in is not configured.`);
  const next = safeNext(one((request.query as Query).next));
  try {
    return reply.code(302).header('Location', await flow.start(services, request, reply, next)).send();
  } catch (err) {
    const failure = failureOf(err, flow.name);
    if (!failure) throw err;
    await recordExternalLoginFailure(services, flow.backend, '', clientOf(request), failure.reason);
    return failSsoLogin(reply, failure.message);
  }
}

async function complete(services: Services, flow: Flow, request: FastifyRequest, reply: FastifyReply) {
  const query = request.query as Query;
  const refuse = async (reason: string, message: string) => {
    await recordExternalLoginFailure(services, flow.backend, '', clientOf(request), reason);
    return failSsoLogin(reply, message);
  };
  if (!flow.configured(services)) return refuse('not_configured', `${flow.name} sign-in is not configured.`);
  const checked = await consumeLogin(services.db, request, reply, flow.backend, one(query.state));
  if (!checked.ok) return refuse(checked.reason, 'The sign-in could not be verified: it was started elsewhere, has expired or was already used. Try again.');
  if (one(query.error) !== undefined) {
    const error = String(one(query.error));
    return refuse(`provider_error:${/^[a-z_]{1,64}$/.test(error) ? error : 'other'}`, `${flow.name} did not sign you in.`);
  }
  const code = one(query.code);
  if (typeof code !== 'string' || code === '' || code.length > 4096) return refuse('missing_code', `${flow.name} answered without an authorization code.`);
  try {
    const identity = await flow.finish(services, request, code, { ...checked.login, state: String(one(query.state)) });
    return await completeSsoLogin(services, request, reply, identity, checked.login.next);
  } catch (err) {
    if (err instanceof ExternalSignInRefused) return refuse(err.reason, err.message);
    const failure = failureOf(err, flow.name);
    if (!failure) throw err;
    return refuse(failure.reason, failure.message);
  }
}

/** The entries of GET /api/v2/auth/: each configured OIDC or social backend. */
export const oidcAndSocialSsoMethod: SsoMethod = {
  entries(services, base) {
    const out: Record<string, SsoEntry> = {};
    for (const flow of SSO_FLOWS.filter((f) => f.configured(services))) {
      out[flow.backend] = { login_url: ssoLoginPath(flow.backend), complete_url: base + ssoCompletePath(flow.backend), name: flow.name };
    }
    return out;
  },
};

export async function registerSsoRoutes(app: FastifyInstance, services: Services): Promise<void> {
  for (const flow of SSO_FLOWS) {
    routeMethods(app, ssoLoginPath(flow.backend), PUBLIC, { GET: (request, reply) => login(services, flow, request, reply) });
    routeMethods(app, ssoCompletePath(flow.backend), PUBLIC, { GET: (request, reply) => complete(services, flow, request, reply) });
  }
}
