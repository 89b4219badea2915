/**
 * The OAuth2 authorization code flow of the social providers: the browser goes to the provider
 * with the client id and a state, the code comes back and is exchanged with the client secret, and
 * the provider's API says who the user is. SVC_SOCIAL_AUTH_PROVIDER_URL replaces the scheme and
 * host of every provider endpoint (a stand-in provider for tests, or a mirror), keeping the path.
 */
import type { Services } from '../../api/context.ts';
import { providerFetch } from './provider-fetch.ts';
import type { ProviderProfile } from './social-identity.ts';
import { exchangeCode, ProviderAnswerRefused, type Fetch, type SocialProvider } from './social-providers.ts';

const setting = (services: Pick<Services, 'settings'>, provider: SocialProvider, suffix: string) =>
  String(services.settings.get<unknown>(`SOCIAL_AUTH_${provider.prefix}_${suffix}`) ?? '');

export const socialConfigured = (services: Pick<Services, 'settings'>, provider: SocialProvider) =>
  setting(services, provider, 'KEY') !== '' && setting(services, provider, 'SECRET') !== '';

/** The real endpoint, or the same path at SVC_SOCIAL_AUTH_PROVIDER_URL when it is set. */
function endpointOf(services: Pick<Services, 'env'>): (real: string) => string {
  const override = services.env.socialAuthProviderUrl;
  if (!override) return (real) => real;
  return (real) => {
    const url = new URL(real);
    return override.replace(/\/+$/, '') + url.pathname + url.search;
  };
}

export function socialLoginUrl(services: Services, provider: SocialProvider, redirectUri: string, state: string): string {
  const url = new URL(endpointOf(services)(provider.authorizeUrl));
  url.search = new URLSearchParams({
    client_id: setting(services, provider, 'KEY'),
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: provider.scope,
    state,
  }).toString();
  return url.toString();
}

export async function socialProfile(services: Services, provider: SocialProvider, code: string, redirectUri: string): Promise<ProviderProfile> {
  const fetch = providerFetch({ timeoutMs: services.settings.get<number>('SOCIAL_AUTH_TIMEOUT') * 1000, verifyTls: true }) as Fetch;
  const url = endpointOf(services);
  const clientId = setting(services, provider, 'KEY');
  const token = await exchangeCode(fetch, url(provider.tokenUrl), { code, clientId, clientSecret: setting(services, provider, 'SECRET'), redirectUri });
  const profile = await provider.profile(fetch, url, token, clientId);
  if (!profile.uid || !profile.username) throw new ProviderAnswerRefused(`${provider.name} did not say who the user is.`);
  checkDomain(services, provider, profile.email);
  return profile;
}

/** SOCIAL_AUTH_GOOGLE_OAUTH2_WHITELISTED_DOMAINS: when not empty, only addresses of these domains sign in. */
function checkDomain(services: Services, provider: SocialProvider, email: string): void {
  if (provider.slug !== 'google-oauth2') return;
  const domains = services.settings.get<string[]>('SOCIAL_AUTH_GOOGLE_OAUTH2_WHITELISTED_DOMAINS') ?? [];
  if (!domains.length) return;
  const domain = email.split('@')[1]?.toLowerCase() ?? '';
  if (!domains.some((d) => d.toLowerCase() === domain)) throw new ProviderAnswerRefused('This account\'s domain is not allowed to sign in.');
}
