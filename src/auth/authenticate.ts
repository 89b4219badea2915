import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../api/errors.ts';
import { anonymousIn, callerIn, type RequestContext, type Services } from '../api/context.ts';
import { clientOf, recordAudit } from '../audit/record.ts';
import { parseBasicHeader } from './basic.ts';
import { fromBearerToken } from './bearer-auth.ts';
import { attemptPasswordLogin, throttledError } from './password-login.ts';
import { secondFactorRequired } from './second-factor.ts';
import { fromSession } from './session-auth.ts';

/** One way of authenticating: answers a context, null when the request does not use it, or throws 401. */
export type Authenticator = (services: Services, request: FastifyRequest, reply: FastifyReply) => Promise<RequestContext | null>;

const MAX_USERNAME = 150;
const invalidBasic = () => new ApiError(401, { detail: 'Invalid username/password.' });
const BASIC_REFUSED_FOR_SECOND_FACTOR =
  'Basic authentication is refused for users who must pass a second factor: sign in with a browser session and a passkey, or use an OAuth2 token.';

/**
 * Authorization: Basic, through the same throttle and audit events as a login at /api/login/.
 * Refused to users who must pass a second factor (docs/authentication.md).
 */
async function fromBasic(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<RequestContext | null> {
  const basic = parseBasicHeader(request.headers.authorization);
  if (!basic) return null;
  if (!services.settings.get<boolean>('AUTH_BASIC_ENABLED')) {
    throw new ApiError(401, { detail: 'Basic authentication is disabled.' });
  }
  // No account has such a name, so there is nothing to guess (and the database refuses NUL bytes).
  if (basic.username.length > MAX_USERNAME || basic.username.includes('\u0000')) throw invalidBasic();
  const result = await attemptPasswordLogin(services, basic.username, basic.password, clientOf(request), {}, { authMethod: 'basic', clearOnSuccess: false });
  if ('throttled' in result) throw throttledError(reply, result.throttled);
  if ('invalid' in result) throw invalidBasic();
  // Basic sends the password alone with every request: there is no way to add a second factor to it.
  if (result.secondFactorRequired ?? (await secondFactorRequired(services.db, result.user.id))) {
    const ctx = callerIn(services, result.user, 'basic');
    const target = { type: 'user', id: result.user.id, name: result.user.username };
    await recordAudit(services.db, { type: 'auth.login', outcome: 'denied', ctx, target, client: clientOf(request), detail: { reason: 'second_factor_required' } });
    throw new ApiError(401, { detail: BASIC_REFUSED_FOR_SECOND_FACTOR });
  }
  return callerIn(services, result.user, 'basic');
}

/** Header credentials come first (as AWX), then the session cookie. */
const AUTHENTICATORS: Authenticator[] = [fromBearerToken, fromBasic, fromSession];

/** Works out who is calling: the first method that recognises the request decides. */
export async function authenticate(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<RequestContext> {
  // Routes that authenticate their callers themselves (the OAuth2 token endpoint reads client
  // credentials from the Authorization header) see an anonymous caller.
  if (request.routeOptions.config.ownAuthentication) return anonymousIn(services);
  for (const method of AUTHENTICATORS) {
    const ctx = await method(services, request, reply);
    if (ctx) return ctx;
  }
  return anonymousIn(services);
}
