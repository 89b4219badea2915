/**
 * Generic OpenID Connect (settings category `oidc`): discovery, the authorization code flow with
 * PKCE, state and nonce; openid-client checks the ID token (signature against the provider's keys,
 * issuer, audience, expiry, nonce) and the authorization response (state, issuer).
 */
import * as client from 'openid-client';
import type { Services } from '../../api/context.ts';
import type { ClaimMap } from '../../config/settings/claim-map.ts';
import { providerFetch } from './provider-fetch.ts';

declare module '../../api/context.ts' {
  interface ServiceCaches {
    /** The OIDC provider's discovered configuration. */
    oidcDiscovery: OidcDiscovery;
  }
}

export const OIDC_BACKEND = 'oidc';

interface OidcSettings {
  endpoint: string;
  key: string;
  secret: string;
  verifySsl: boolean;
  timeoutMs: number;
}

function readSettings(services: Pick<Services, 'settings'>): OidcSettings {
  const get = (name: string) => services.settings.get<unknown>(name);
  return {
    endpoint: String(get('SOCIAL_AUTH_OIDC_OIDC_ENDPOINT') ?? ''),
    key: String(get('SOCIAL_AUTH_OIDC_KEY') ?? ''),
    secret: String(get('SOCIAL_AUTH_OIDC_SECRET') ?? ''),
    verifySsl: get('SOCIAL_AUTH_OIDC_VERIFY_SSL') !== false,
    timeoutMs: Number(get('SOCIAL_AUTH_TIMEOUT') ?? 10) * 1000,
  };
}

export const oidcConfigured = (services: Pick<Services, 'settings'>) => {
  const s = readSettings(services);
  return s.endpoint !== '' && s.key !== '';
};

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const DISCOVERY_LIFETIME_MS = 5 * 60_000;

/** The provider's configuration one service discovered last (made by the composition root, one per service). */
export class OidcDiscovery {
  last: { key: string; at: number; config: client.Configuration } | null = null;
}

/** The provider's configuration, discovered (and kept a few minutes, for the settings in force). */
async function configuration(services: Pick<Services, 'settings' | 'caches'>): Promise<client.Configuration> {
  const s = readSettings(services);
  const cacheKey = JSON.stringify(s);
  const discovery = services.caches.oidcDiscovery;
  const cached = discovery.last;
  if (cached && cached.key === cacheKey && Date.now() - cached.at < DISCOVERY_LIFETIME_MS) return cached.config;
  const server = new URL(s.endpoint.replace(/\/\.well-known\/openid-configuration\/?$/, ''));
  const fetch = providerFetch({ timeoutMs: s.timeoutMs, verifyTls: s.verifySsl });
  const config = await client.discovery(server, s.key, s.secret ? { client_secret: s.secret } : undefined, s.secret ? client.ClientSecretPost(s.secret) : client.None(), {
    [client.customFetch]: fetch as client.CustomFetch,
    timeout: s.timeoutMs / 1000,
    // Plain http only for a provider on this machine; anything else must use https.
    execute: server.protocol === 'http:' && LOOPBACK_HOSTS.has(server.host.replace(/:\d+$/, '')) ? [client.allowInsecureRequests] : [],
  });
  config[client.customFetch] = fetch as client.CustomFetch;
  discovery.last = { key: cacheKey, at: Date.now(), config };
  return config;
}

/** The provider's authorization URL for a new sign-in. */
export async function oidcAuthorizationUrl(
  services: Services,
  params: { redirectUri: string; state: string; nonce: string; codeVerifier: string },
): Promise<URL> {
  const config = await configuration(services);
  return client.buildAuthorizationUrl(config, {
    redirect_uri: params.redirectUri,
    scope: 'openid profile email',
    response_type: 'code',
    state: params.state,
    nonce: params.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(params.codeVerifier),
    code_challenge_method: 'S256',
  });
}

export const newCodeVerifier = () => client.randomPKCECodeVerifier();

export type Claims = Record<string, unknown>;

/** Exchanges the code of the provider's answer and answers the verified claims (ID token, then user info). */
export async function oidcClaims(
  services: Services,
  currentUrl: URL,
  checks: { redirectUri: string; state: string; nonce: string; codeVerifier: string },
): Promise<Claims> {
  const config = await configuration(services);
  const tokens = await client.authorizationCodeGrant(
    config,
    currentUrl,
    { expectedState: checks.state, expectedNonce: checks.nonce, pkceCodeVerifier: checks.codeVerifier, idTokenExpected: true },
    { redirect_uri: checks.redirectUri },
  );
  const idClaims = tokens.claims() as Claims;
  let info: Claims = {};
  if (config.serverMetadata().userinfo_endpoint && tokens.access_token) {
    info = (await client.fetchUserInfo(config, tokens.access_token, String(idClaims.sub))) as Claims;
  }
  return { ...info, ...idClaims };
}

const claimText = (claims: Claims, name: string) => {
  const v = claims[name];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
};

/** The user's fields from the claims, as SOCIAL_AUTH_OIDC_CLAIM_MAP says. */
export function userFromClaims(claims: Claims, map: ClaimMap) {
  const email = claimText(claims, map.email);
  const username = claimText(claims, map.username) || email.split('@')[0] || claimText(claims, 'sub');
  return { uid: claimText(claims, 'sub'), username, email, first_name: claimText(claims, map.first_name), last_name: claimText(claims, map.last_name) };
}
