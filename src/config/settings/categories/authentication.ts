import { boolean, FieldProblem, integer } from '../../../api/fields.ts';
import { integerMap, stringList } from '../shapes.ts';
import { organizationMapField, teamMapField } from '../sso-maps.ts';
import { category, setting } from '../types.ts';

export const OAUTH2_PROVIDER_DEFAULT = {
  ACCESS_TOKEN_EXPIRE_SECONDS: 31_536_000_000,
  AUTHORIZATION_CODE_EXPIRE_SECONDS: 600,
  REFRESH_TOKEN_EXPIRE_SECONDS: 2_628_000,
};

/** The user fields SOCIAL_AUTH_USER_FIELDS may name. */
export const SOCIAL_USER_FIELDS = ['username', 'email', 'first_name', 'last_name'];

export const authentication = category({
  slug: 'authentication',
  name: 'Authentication',
  description: 'Sessions, basic authentication and OAuth2 tokens.',
  settings: {
    SESSION_COOKIE_AGE: setting<number>(
      integer({
        default: 1800,
        min: 60,
        label: 'Idle Time Force Log Out',
        helpText: 'Number of seconds that a user is inactive before they will need to login again.',
      }),
      { unit: 'seconds' },
    ),
    SESSIONS_PER_USER: setting<number>(
      integer({
        default: -1,
        min: -1,
        label: 'Maximum number of simultaneous logged in sessions',
        helpText: 'Maximum number of simultaneous logged in sessions a user may have. To disable enter -1.',
      }),
    ),
    AUTH_BASIC_ENABLED: setting<boolean>(
      boolean({
        default: true,
        label: 'Enable HTTP Basic Auth',
        helpText: 'Enable HTTP Basic Auth for the API Browser.',
      }),
    ),
    ALLOW_OAUTH2_FOR_EXTERNAL_USERS: setting<boolean>(
      boolean({
        default: false,
        label: 'Allow External Users to Create OAuth2 Tokens',
        helpText:
          'For security reasons, users from external auth providers (LDAP, SAML, SSO, Radius, and others) are not allowed to create OAuth2 tokens. To change this behavior, enable this setting. Existing tokens will not be deleted when this setting is toggled off.',
      }),
    ),
    ALLOW_METRICS_FOR_ANONYMOUS_USERS: setting<boolean>(
      boolean({
        default: false,
        label: 'Allow anonymous users to poll metrics',
        helpText: 'If true, anonymous users are allowed to poll metrics.',
      }),
    ),
    SOCIAL_AUTH_ORGANIZATION_MAP: setting<Record<string, unknown>>(
      organizationMapField({
        regexAllowed: true,
        label: 'Social Auth Organization Map',
        helpText:
          'Mapping to organization admins/users from social auth accounts (OIDC, GitHub, Google, Azure AD). This setting controls which users are placed into which organizations based on their username and email address. A provider\'s own map, when not empty, is used instead.',
      }),
    ),
    SOCIAL_AUTH_TEAM_MAP: setting<Record<string, unknown>>(
      teamMapField({
        regexAllowed: true,
        label: 'Social Auth Team Map',
        helpText: 'Mapping of team members (users) from social auth accounts. A provider\'s own map, when not empty, is used instead.',
      }),
    ),
    SOCIAL_AUTH_USER_FIELDS: setting<string[] | null>(
      stringList({
        default: null,
        nullable: true,
        label: 'Social Auth User Fields',
        helpText:
          'When set to an empty list `[]`, this setting prevents new user accounts from being created. Only users who have previously logged in using social auth will be able to login. Otherwise the fields (email, first_name, last_name) a social sign-in may set; null for all.',
        item: (name) => {
          if (!SOCIAL_USER_FIELDS.includes(name)) throw new FieldProblem(`"${name}" is not one of ${SOCIAL_USER_FIELDS.join(', ')}.`);
        },
      }),
      { child: { type: 'string' } },
    ),
    SOCIAL_AUTH_TIMEOUT: setting<number>(
      integer({
        default: 10,
        min: 1,
        max: 60,
        label: 'Social Auth Provider Timeout',
        helpText: 'Seconds the service waits for an OpenID Connect or OAuth2 provider (discovery, token and user info requests) before the sign-in fails.',
      }),
      { unit: 'seconds' },
    ),
    OAUTH2_PROVIDER: setting<typeof OAUTH2_PROVIDER_DEFAULT>(
      integerMap({
        default: OAUTH2_PROVIDER_DEFAULT,
        min: 1,
        label: 'OAuth 2 Timeout Settings',
        helpText:
          'Dictionary for customizing OAuth 2 timeouts, available items are `ACCESS_TOKEN_EXPIRE_SECONDS`, the duration of access tokens in the number of seconds, `AUTHORIZATION_CODE_EXPIRE_SECONDS`, the duration of authorization codes in the number of seconds, and `REFRESH_TOKEN_EXPIRE_SECONDS`, the duration of refresh tokens, after expired access tokens, in the number of seconds.',
      }),
      { child: { type: 'integer', min_value: 1 } },
    ),
  },
});
