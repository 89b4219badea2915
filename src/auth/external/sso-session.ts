/**
 * The end of a browser SSO sign-in (SAML, OIDC, social providers): on success the session
 * starts as with the login form and the browser goes to the console (or a safe `next`); on
 * failure it goes back to the console's login page, which shows the message.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CurrentUser, Services } from '../../api/context.ts';
import { clientOf } from '../../audit/record.ts';
import { safeNext } from '../login-routes.ts';
import { insecureLoginMessage, loginInsecure, startSession } from '../session-start.ts';
import { ExternalSignInRefused, recordExternalLoginFailure, signInExternalUser, type ExternalIdentity } from './external-user.ts';

/** The console's login page. */
export const CONSOLE_LOGIN_PATH = '/login';
/** Where a signed-in browser goes when no (safe) `next` was given. */
export const CONSOLE_HOME = '/';
const MAX_MESSAGE = 300;

/** Starts the session of `user` and redirects the browser to `next` (a path of this site) or the console. */
export async function finishSsoLogin(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  user: CurrentUser,
  next?: string | null,
  backend?: string,
): Promise<FastifyReply> {
  await startSession(services, request, reply, user, backend ? { backend } : undefined);
  return reply.code(302).header('Location', safeNext(next) ?? CONSOLE_HOME).send();
}

/**
 * Redirects the browser to the login page with a message for the user. The message is the
 * caller's own words (never a peer's error text, which may carry details of the exchange).
 */
export function failSsoLogin(reply: FastifyReply, message: string): FastifyReply {
  const text = message.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, MAX_MESSAGE);
  return reply.code(302).header('Location', `${CONSOLE_LOGIN_PATH}?sso_error=${encodeURIComponent(text)}`).send();
}

/**
 * The whole end of an SSO callback once the protocol has verified the identity: the local user
 * signed in (or refused, with its message) and the browser sent on.
 */
export async function completeSsoLogin(
  services: Services,
  request: FastifyRequest,
  reply: FastifyReply,
  identity: ExternalIdentity,
  next?: string | null,
): Promise<FastifyReply> {
  const client = clientOf(request);
  if (loginInsecure(services, request)) {
    await recordExternalLoginFailure(services, identity.backend, identity.username, client, 'insecure_transport');
    return failSsoLogin(reply, insecureLoginMessage(services, request));
  }
  try {
    const user = await signInExternalUser(services, identity, client, { authMethod: 'session' });
    return await finishSsoLogin(services, request, reply, user, next, identity.backend);
  } catch (err) {
    if (err instanceof ExternalSignInRefused) return failSsoLogin(reply, err.message);
    throw err;
  }
}
