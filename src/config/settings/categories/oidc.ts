import { boolean, secret, text } from '../../../api/fields.ts';
import { organizationMapField, teamMapField } from '../sso-maps.ts';
import { category, setting } from '../types.ts';
import { claimMapField, DEFAULT_CLAIM_MAP, type ClaimMap } from '../claim-map.ts';

const HTTP_URL = /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/i;

export const oidcCategory = category({
  slug: 'oidc',
  name: 'Generic OIDC',
  description: 'Sign-in through an OpenID Connect provider (authorization code flow with PKCE).',
  settings: {
    SOCIAL_AUTH_OIDC_KEY: setting<string>(
      text({ label: 'OIDC Key', helpText: 'The OIDC key (Client ID) from your IDP.', maxLength: 1024 }),
    ),
    SOCIAL_AUTH_OIDC_SECRET: setting<string>(
      secret({ label: 'OIDC Secret', helpText: 'The OIDC secret (Client Secret) from your IDP.', maxLength: 4096 }),
    ),
    SOCIAL_AUTH_OIDC_OIDC_ENDPOINT: setting<string>(
      text({
        label: 'OIDC Provider URL',
        helpText: 'The URL for your OIDC provider including the path up to /.well-known/openid-configuration',
        maxLength: 2048,
        pattern: HTTP_URL,
        patternMessage: 'Enter a valid URL starting with http:// or https://.',
      }),
    ),
    SOCIAL_AUTH_OIDC_VERIFY_SSL: setting<boolean>(
      boolean({ default: true, label: 'Verify OIDC Provider Certificate', helpText: 'Verify the OIDC provider ssl certificate.' }),
    ),
    SOCIAL_AUTH_OIDC_CLAIM_MAP: setting<ClaimMap>(
      claimMapField({
        default: DEFAULT_CLAIM_MAP,
        label: 'OIDC Claim Map',
        helpText:
          'Which claims of the ID token (or the user info) give the user\'s fields: {"username", "email", "first_name", "last_name"}, each naming a claim. The username falls back to the email\'s local part, then to the subject.',
      }),
    ),
    SOCIAL_AUTH_OIDC_ORGANIZATION_MAP: setting<Record<string, unknown>>(
      organizationMapField({
        regexAllowed: true,
        label: 'OIDC Organization Map',
        helpText: 'Mapping to organization admins/users from OIDC sign-ins, as SOCIAL_AUTH_ORGANIZATION_MAP; when set it is used instead of it.',
      }),
    ),
    SOCIAL_AUTH_OIDC_TEAM_MAP: setting<Record<string, unknown>>(
      teamMapField({
        regexAllowed: true,
        label: 'OIDC Team Map',
        helpText: 'Mapping of team members (users) from OIDC sign-ins, as SOCIAL_AUTH_TEAM_MAP; when set it is used instead of it.',
      }),
    ),
  },
});
