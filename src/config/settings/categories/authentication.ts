import { boolean, integer } from '../../../api/fields.ts';
import { integerMap } from '../shapes.ts';
import { category, setting } from '../types.ts';

export const OAUTH2_PROVIDER_DEFAULT = {
  ACCESS_TOKEN_EXPIRE_SECONDS: 31_536_000_000,
  AUTHORIZATION_CODE_EXPIRE_SECONDS: 600,
  REFRESH_TOKEN_EXPIRE_SECONDS: 2_628_000,
};

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
