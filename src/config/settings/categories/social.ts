/**
 * The social sign-in providers' categories (AWX's names): a client id and secret, and maps that,
 * when not empty, are used instead of SOCIAL_AUTH_ORGANIZATION_MAP and SOCIAL_AUTH_TEAM_MAP.
 */
import { FieldProblem, secret, text, type Field } from '../../../api/fields.ts';
import { stringList } from '../shapes.ts';
import { organizationMapField, teamMapField } from '../sso-maps.ts';
import { category, setting, type SettingField } from '../types.ts';

const DOMAIN = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/i;

function providerSettings<P extends string>(prefix: P, provider: string) {
  const name = (suffix: string) => `SOCIAL_AUTH_${prefix}_${suffix}`;
  return {
    [name('KEY')]: setting<string>(text({ label: `${provider} OAuth2 Key`, helpText: `The OAuth2 key (Client ID) from your ${provider} application.`, maxLength: 1024 })),
    [name('SECRET')]: setting<string>(secret({ label: `${provider} OAuth2 Secret`, helpText: `The OAuth2 secret (Client Secret) from your ${provider} application.`, maxLength: 4096 })),
    [name('ORGANIZATION_MAP')]: setting<Record<string, unknown>>(
      organizationMapField({ regexAllowed: true, label: `${provider} OAuth2 Organization Map`, helpText: `Mapping to organization admins/users from ${provider} sign-ins; when empty, SOCIAL_AUTH_ORGANIZATION_MAP applies.` }),
    ),
    [name('TEAM_MAP')]: setting<Record<string, unknown>>(
      teamMapField({ regexAllowed: true, label: `${provider} OAuth2 Team Map`, helpText: `Mapping of team members (users) from ${provider} sign-ins; when empty, SOCIAL_AUTH_TEAM_MAP applies.` }),
    ),
  } as Record<`SOCIAL_AUTH_${P}_${'KEY' | 'SECRET' | 'ORGANIZATION_MAP' | 'TEAM_MAP'}`, SettingField<unknown>>;
}

export const githubCategory = category({
  slug: 'github',
  name: 'GitHub OAuth2',
  description: 'Sign-in with GitHub accounts.',
  settings: providerSettings('GITHUB', 'GitHub'),
});

const whitelistedDomains: Field = stringList({
  label: 'Google OAuth2 Allowed Domains',
  helpText: 'Update this setting to restrict the domains who are allowed to login using Google OAuth2.',
  item: (domain) => {
    if (!DOMAIN.test(domain)) throw new FieldProblem(`"${domain}" is not a domain name.`);
  },
});

export const googleCategory = category({
  slug: 'google-oauth2',
  name: 'Google OAuth2',
  description: 'Sign-in with Google accounts.',
  settings: {
    ...providerSettings('GOOGLE_OAUTH2', 'Google'),
    SOCIAL_AUTH_GOOGLE_OAUTH2_WHITELISTED_DOMAINS: setting<string[]>(whitelistedDomains, { child: { type: 'string' } }),
  },
});

export const azureadCategory = category({
  slug: 'azuread-oauth2',
  name: 'Azure AD OAuth2',
  description: 'Sign-in with Microsoft Entra ID (Azure AD) accounts.',
  settings: providerSettings('AZUREAD_OAUTH2', 'Azure AD'),
});
