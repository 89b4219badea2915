/**
 * The social sign-in providers: where each sends the browser, where the code is exchanged, and
 * how each one's API describes the user (as python-social-auth's backends read them in AWX).
 */
import { ProviderUnreachable } from './provider-fetch.ts';

export type Fetch = (url: string, init?: { method?: string; headers?: Record<string, string>; body?: string }) => Promise<Response>;

export interface SocialProfile {
  uid: string;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
}

export interface TokenAnswer {
  access_token?: string;
  id_token?: string;
  [key: string]: unknown;
}

export interface SocialProvider {
  slug: string;
  /** The middle of the settings' names: SOCIAL_AUTH_<prefix>_KEY. */
  prefix: string;
  name: string;
  authorizeUrl: string;
  tokenUrl: string;
  scope: string;
  profile(fetch: Fetch, url: (real: string) => string, token: TokenAnswer, clientId: string): Promise<SocialProfile>;
}

/** An answer the provider gave that the sign-in cannot use. */
export class ProviderAnswerRefused extends Error {}

async function jsonOf(response: Response, what: string): Promise<any> {
  if (response.status !== 200) throw new ProviderAnswerRefused(`${what} answered HTTP ${response.status}.`);
  try {
    return await response.json();
  } catch {
    throw new ProviderAnswerRefused(`${what} did not answer JSON.`);
  }
}

const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

function splitName(full: string): { first_name: string; last_name: string } {
  const parts = full.trim().split(/\s+/).filter(Boolean);
  return { first_name: parts[0] ?? '', last_name: parts.slice(1).join(' ') };
}

const github: SocialProvider = {
  slug: 'github',
  prefix: 'GITHUB',
  name: 'GitHub',
  authorizeUrl: 'https://github.com/login/oauth/authorize',
  tokenUrl: 'https://github.com/login/oauth/access_token',
  scope: 'user:email',
  async profile(fetch, url, token) {
    const headers = { authorization: `Bearer ${token.access_token}`, accept: 'application/vnd.github+json', 'user-agent': 'drover' };
    const user = await jsonOf(await fetch(url('https://api.github.com/user'), { headers }), 'GitHub user API');
    let email = text(user.email);
    if (!email) {
      const emails = await jsonOf(await fetch(url('https://api.github.com/user/emails'), { headers }), 'GitHub emails API');
      const primary = Array.isArray(emails) ? emails.find((e) => e && e.primary && e.verified) : undefined;
      email = text(primary?.email);
    }
    return { uid: text(user.id), username: text(user.login), email, ...splitName(text(user.name)) };
  },
};

const google: SocialProvider = {
  slug: 'google-oauth2',
  prefix: 'GOOGLE_OAUTH2',
  name: 'Google',
  authorizeUrl: 'https://accounts.google.com/o/oauth2/auth',
  tokenUrl: 'https://oauth2.googleapis.com/token',
  scope: 'openid email profile',
  async profile(fetch, url, token) {
    const headers = { authorization: `Bearer ${token.access_token}`, accept: 'application/json' };
    const info = await jsonOf(await fetch(url('https://www.googleapis.com/oauth2/v3/userinfo'), { headers }), 'Google user info');
    const email = text(info.email);
    if (email && info.email_verified === false) throw new ProviderAnswerRefused('Google has not verified the email address of this account.');
    return { uid: text(info.sub), username: email.split('@')[0] || text(info.sub), email, first_name: text(info.given_name), last_name: text(info.family_name) };
  },
};

/** The claims of an ID token received straight from the token endpoint over TLS (OpenID Connect Core 3.1.3.7). */
function tokenClaims(idToken: unknown, clientId: string): Record<string, unknown> {
  if (typeof idToken !== 'string') throw new ProviderAnswerRefused('Azure AD answered no ID token.');
  const part = idToken.split('.')[1];
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'));
  } catch {
    throw new ProviderAnswerRefused('Azure AD answered an ID token that cannot be read.');
  }
  const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audience.includes(clientId)) throw new ProviderAnswerRefused('The ID token is meant for another application.');
  if (typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now()) throw new ProviderAnswerRefused('The ID token has expired.');
  return claims;
}

const azuread: SocialProvider = {
  slug: 'azuread-oauth2',
  prefix: 'AZUREAD_OAUTH2',
  name: 'Azure AD',
  authorizeUrl: 'https://login.microsoftonline.com/common/oauth2/authorize',
  tokenUrl: 'https://login.microsoftonline.com/common/oauth2/token',
  scope: 'openid profile email',
  async profile(_fetch, _url, token, clientId) {
    const claims = tokenClaims(token.id_token, clientId);
    const upn = text(claims.upn) || text(claims.preferred_username);
    const email = text(claims.email) || (upn.includes('@') ? upn : '');
    return { uid: text(claims.oid) || text(claims.sub), username: upn || email, email, first_name: text(claims.given_name), last_name: text(claims.family_name) };
  },
};

export const SOCIAL_PROVIDERS: readonly SocialProvider[] = [github, google, azuread];

export const socialProvider = (slug: string) => SOCIAL_PROVIDERS.find((p) => p.slug === slug);

/** Exchanges an authorization code at the provider's token endpoint (client id and secret in the body). */
export async function exchangeCode(
  fetch: Fetch,
  tokenUrl: string,
  params: { code: string; clientId: string; clientSecret: string; redirectUri: string },
): Promise<TokenAnswer> {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code: params.code,
    client_id: params.clientId,
    client_secret: params.clientSecret,
    redirect_uri: params.redirectUri,
  }).toString();
  const response = await fetch(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body });
  const answer = await jsonOf(response, 'The token endpoint').catch(async (err) => {
    if (err instanceof ProviderUnreachable) throw err;
    throw new ProviderAnswerRefused('The provider refused the authorization code.');
  });
  // GitHub answers an error with HTTP 200 and an `error` member.
  if (!answer || typeof answer !== 'object' || answer.error || typeof answer.access_token !== 'string') {
    throw new ProviderAnswerRefused('The provider refused the authorization code.');
  }
  return answer as TokenAnswer;
}
