/** How a caller authenticates, as OpenAPI documents say it: the main service's and the assistant's (which asks the main service). */
import { SESSION_COOKIE } from './sessions.ts';

export const SECURITY_SCHEMES = {
  basic: { type: 'http', scheme: 'basic' },
  token: { type: 'http', scheme: 'bearer', description: 'A personal access token or an OAuth2 access token.' },
  session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'A browser session from POST /api/login/ (writes also need X-CSRFToken).' },
} as const;

/** Any one of them. */
export const ANY_SECURITY: Array<Record<string, string[]>> = [{ basic: [] }, { token: [] }, { session: [] }];
