import type { FastifyInstance } from 'fastify';
import type { Services } from '../../api/context.ts';
import { viewOptions } from '../../api/options.ts';
import { AUTHENTICATED, PUBLIC } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { beginAuthentication, completeAuthentication } from './authentication.ts';
import { beginRegistration, completeRegistration } from './registration.ts';
import { authenticateBeginSchemas, authenticateCompleteSchemas, registerBeginSchemas, registerCompleteSchemas } from './webauthn-schemas.ts';

export const WEBAUTHN_URL = '/api/v2/webauthn/';

/**
 * The WebAuthn ceremonies (docs/webauthn.md): register/begin/ and register/complete/ for a
 * signed-in user, authenticate/begin/ and authenticate/complete/ for a session's second factor or
 * a passwordless sign-in. A session that has not passed its second factor reaches them all (the
 * credentials list does not: it needs the factor passed). The sign-in routes check CSRF as the login does.
 */
export function registerWebauthnRoutes(app: FastifyInstance, services: Services): void {
  const ceremony = (name: string, description: string, get: string) => ({
    GET: async () => ({ detail: get }),
    OPTIONS: async () => viewOptions(name, description),
  });

  routeMethods(app, `${WEBAUTHN_URL}register/begin/`, AUTHENTICATED, {
    ...ceremony('WebAuthn Register Begin', 'POST: the options for navigator.credentials.create(), to register a passkey.', 'POST here to begin registering a passkey.'),
    POST: (request, reply) => beginRegistration(services, request, reply),
  }, registerBeginSchemas, { secondFactorExempt: true });

  routeMethods(app, `${WEBAUTHN_URL}register/complete/`, AUTHENTICATED, {
    ...ceremony('WebAuthn Register Complete', 'POST {credential, label}: stores the passkey the browser created.', 'POST the credential the browser created here.'),
    POST: (request, reply) => completeRegistration(services, request, reply),
  }, registerCompleteSchemas, { secondFactorExempt: true });

  routeMethods(app, `${WEBAUTHN_URL}authenticate/begin/`, PUBLIC, {
    ...ceremony(
      'WebAuthn Authenticate Begin',
      'POST {username?}: the options for navigator.credentials.get(): the second factor of a session, or a passwordless sign-in.',
      'POST here (with a username, or none) to begin signing in with a passkey, or to pass the second factor.',
    ),
    POST: (request, reply) => beginAuthentication(services, request, reply),
  }, authenticateBeginSchemas, { csrfExempt: true, secondFactorExempt: true });

  routeMethods(app, `${WEBAUTHN_URL}authenticate/complete/`, PUBLIC, {
    ...ceremony(
      'WebAuthn Authenticate Complete',
      'POST {credential}: verifies the assertion; passes the second factor of a session, or signs in.',
      'POST the assertion the browser made here.',
    ),
    POST: (request, reply) => completeAuthentication(services, request, reply),
  }, authenticateCompleteSchemas, { csrfExempt: true, secondFactorExempt: true });
}
