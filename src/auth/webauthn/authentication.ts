/**
 * Authenticating with a passkey. With a browser session, the assertion is the session's second
 * factor: the session passes it under a new key. Without one, it is a passwordless sign-in, either
 * username-first (the options list that user's passkeys) or usernameless (any discoverable passkey;
 * the userHandle it answers names the user), ending in the very cookies a password login sets.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { generateAuthenticationOptions, verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Static } from 'typebox';
import type { RequestContext, Services } from '../../api/context.ts';
import { ApiError } from '../../api/errors.ts';
import { validBody } from '../../api/route-schemas.ts';
import { clientOf, recordAudit } from '../../audit/record.ts';
import { toCurrentUser } from '../basic.ts';
import { checkSignInCsrf } from '../csrf.ts';
import { meObject } from '../me.ts';
import { recordThrottled, throttledError } from '../password-login.ts';
import { sessionContext } from '../session-auth.ts';
import { insecureLoginMessage, loginInsecure, startSession } from '../session-start.ts';
import { newCsrfToken, passSecondFactor, SESSION_COOKIE, SESSION_COOKIE_HEADER, sessionCookieAge, setCsrfCookie, setSessionCookie } from '../sessions.ts';
import { checkAddressThrottle, recordAddressFailure } from '../throttle.ts';
import { CHALLENGE_TTL_SECONDS, ceremonyKey, consumeChallenge, CEREMONY_COOKIE, newChallenge, storeChallenge, type CeremonyMode } from './challenges.ts';
import { credentialsOf, decoyCredentialId, findCredential, recordUse, signCountRefusal, type CredentialWithUser } from './credential-store.ts';
import { CeremonyRefused } from './refusals.ts';
import { acceptedOrigin, readClientData, relyingParty } from './relying-party.ts';
import { AuthenticateBeginBody, AuthenticateCompleteBody } from './webauthn-schemas.ts';

/** A caller authenticated by a header (token, Basic) has no browser session to pass a factor or sign in to. */
function refuseHeaderCallers(ctx: RequestContext): void {
  if (ctx.authMethod === 'basic' || ctx.authMethod === 'token') {
    throw new ApiError(400, { detail: 'Passkeys sign in browser sessions: send no Authorization header.' });
  }
}

/** The ceremony a request takes part in: a session's second factor, or a sign-in. */
function ceremonyOf(request: FastifyRequest): { mode: CeremonyMode; sessionKey: string | null } {
  const key = request.cookies[SESSION_COOKIE];
  return request.ctx.authMethod === 'session' && key ? { mode: 'second_factor', sessionKey: key } : { mode: 'sign_in', sessionKey: null };
}

/** What a sign-in must pass before anything is looked at: a transport its cookie survives, and the address throttle. */
async function admitSignIn(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (loginInsecure(services, request)) throw new ApiError(400, { detail: insecureLoginMessage(services, request) });
  const throttled = await checkAddressThrottle(services.db, request.ip);
  if (throttled) {
    await recordThrottled(services.db, sessionContext(services, null), clientOf(request), throttled, { detail: { via: 'webauthn' } });
    throw throttledError(reply, throttled);
  }
}

/** POST authenticate/begin/: the request options, the challenge stored for this browser (and user). */
export async function beginAuthentication(services: Services, request: FastifyRequest, reply: FastifyReply) {
  const { db } = services;
  refuseHeaderCallers(request.ctx);
  checkSignInCsrf(services, request);
  const body = validBody(request, AuthenticateBeginBody);
  const { mode, sessionKey } = ceremonyOf(request);
  const rp = relyingParty(request);
  const common = { rpID: rp.id, challenge: newChallenge(), timeout: CHALLENGE_TTL_SECONDS * 1000 };

  if (mode === 'second_factor') {
    const user = request.ctx.user!;
    const credentials = await credentialsOf(db, user.id);
    if (!credentials.length) {
      throw new ApiError(400, { detail: 'You have no passkey to authenticate with: register one first (POST /api/v2/webauthn/register/begin/).' });
    }
    const options = await generateAuthenticationOptions({
      ...common, userVerification: 'preferred', allowCredentials: credentials.map((c) => ({ id: c.credential_id, transports: c.transports })),
    });
    await storeChallenge(db, options.challenge, { mode, userId: user.id, ceremonyKey: ceremonyKey(services, request, reply), sessionKey, remoteAddr: request.ip });
    return options;
  }

  await admitSignIn(services, request, reply);
  let userId: number | null = null;
  let allowCredentials: { id: string }[] = [];
  if (body.username !== undefined) {
    // Username-first: that user's passkeys, or one made-up id for a username without any (or no
    // active account), asked alike, so the answer tells no one which usernames exist.
    const [user] = await db.query<{ id: number }>('SELECT id FROM users WHERE username = $1 AND is_active', [body.username]);
    userId = user?.id ?? null;
    const credentials = await credentialsOf(db, userId ?? 0);
    allowCredentials = credentials.length
      ? credentials.map((c) => ({ id: c.credential_id }))
      : [{ id: decoyCredentialId(services.env.secretKey, body.username) }];
  }
  // Signing in with the passkey alone: the authenticator must verify its user (PIN, biometrics).
  const options = await generateAuthenticationOptions({ ...common, userVerification: 'required', allowCredentials });
  await storeChallenge(db, options.challenge, {
    mode, userId, anyUser: body.username === undefined, ceremonyKey: ceremonyKey(services, request, reply), sessionKey: null, remoteAddr: request.ip,
  });
  return options;
}

/** POST authenticate/complete/: the assertion verified; the session passes its second factor, or one is started. */
export async function completeAuthentication(services: Services, request: FastifyRequest, reply: FastifyReply) {
  const { db } = services;
  refuseHeaderCallers(request.ctx);
  checkSignInCsrf(services, request);
  const { mode, sessionKey } = ceremonyOf(request);
  if (mode === 'sign_in') await admitSignIn(services, request, reply);
  const body = validBody(request, AuthenticateCompleteBody);
  const client = clientOf(request);
  const seen: { credential?: CredentialWithUser } = {};

  let found: CredentialWithUser;
  try {
    found = await verifyAssertion(services, request, body, mode, sessionKey, seen);
  } catch (err) {
    if (err instanceof CeremonyRefused) {
      const who = seen.credential?.user;
      await recordAudit(db, {
        type: 'webauthn.authenticated', outcome: 'failure', ctx: mode === 'sign_in' ? sessionContext(services, null) : request.ctx,
        // The user whose passkey answered; for a sign-in, also the username tried (as a failed login records it).
        ...(who && { target: { type: 'user', id: who.id, name: who.username } }),
        ...(who && mode === 'sign_in' && { actorUsername: who.username }),
        client, detail: { mode, reason: err.reason },
      });
      if (mode === 'sign_in') await recordAddressFailure(db, request.ip);
    }
    throw err;
  }

  const user = toCurrentUser(found.user);
  const target = { type: 'user', id: user.id, name: user.username };
  const detail = { mode, credential: found.credential.id };
  let ctx: RequestContext;
  if (mode === 'sign_in') {
    reply.header(SESSION_COOKIE_HEADER, SESSION_COOKIE);
    await startSession(services, request, reply, user, { method: 'webauthn', credential: found.credential.id }, { secondFactorPassed: true });
    ctx = sessionContext(services, user);
  } else {
    const fresh = await passSecondFactor(db, sessionKey!);
    if (!fresh) throw new ApiError(401, { detail: 'Your session has expired or ended. Log in again.' });
    // A new key and CSRF token, so none seen before the second factor serves after it.
    const age = sessionCookieAge(services.settings);
    setSessionCookie(services, reply, fresh, age);
    setCsrfCookie(services, reply, newCsrfToken());
    reply.header('Session-Timeout', String(age));
    ctx = { ...request.ctx, secondFactorPending: false };
  }
  await recordAudit(db, { type: 'webauthn.authenticated', ctx, target, client, detail });
  return meObject(services, ctx);
}

const unpadded = (value: string) => value.replace(/=+$/, '');

async function verifyAssertion(
  services: Services, request: FastifyRequest, body: Static<typeof AuthenticateCompleteBody>, mode: CeremonyMode, sessionKey: string | null,
  seen: { credential?: CredentialWithUser },
): Promise<CredentialWithUser> {
  const { db } = services;
  const ceremony = request.cookies[CEREMONY_COOKIE];
  if (!ceremony) throw new CeremonyRefused('no_ceremony', 'No passkey sign-in is under way in this browser (its ceremony cookie is missing): begin again.');
  const clientData = readClientData(body.credential.response.clientDataJSON);
  const challenge = await consumeChallenge(db, clientData.challenge, { mode, ceremonyKey: ceremony, sessionKey });
  if (challenge.state === 'expired') throw new CeremonyRefused('expired_challenge', 'The sign-in took too long (its challenge expired): begin again.');
  if (challenge.state === 'unknown') {
    throw new CeremonyRefused('unknown_challenge', 'The assertion answers no ceremony under way in this browser (the challenge is unknown or already used): begin again.');
  }
  const origin = acceptedOrigin(services, request, clientData);

  const id = unpadded(body.credential.id);
  if (id !== unpadded(body.credential.rawId)) throw new CeremonyRefused('malformed', 'The credential\'s id and rawId differ.');
  const found = await findCredential(db, id);
  if (!found) throw new CeremonyRefused('unknown_credential', 'This passkey is not registered here.');
  seen.credential = found;
  const { credential, user } = found;
  const handle = body.credential.response.userHandle === undefined ? undefined : unpadded(body.credential.response.userHandle);
  const wrongUser = () => new CeremonyRefused('wrong_user', 'This passkey does not belong to the user signing in.');
  if (handle !== undefined && handle !== found.handle) throw wrongUser();
  if (mode === 'second_factor') {
    if (user.id !== request.ctx.user!.id || challenge.userId !== user.id) throw wrongUser();
  } else if (challenge.anyUser) {
    // Usernameless: the user is the one the passkey's userHandle names.
    if (handle === undefined) throw wrongUser();
  } else if (challenge.userId !== user.id) {
    throw wrongUser();
  }
  if (!user.is_active) throw new CeremonyRefused('inactive', 'This user is inactive.');

  let verified;
  try {
    verified = await verifyAuthenticationResponse({
      response: body.credential as AuthenticationResponseJSON,
      expectedChallenge: clientData.challenge,
      expectedOrigin: origin,
      expectedRPID: relyingParty(request).id,
      credential: { id: credential.credential_id, publicKey: new Uint8Array(credential.public_key), counter: Number(credential.sign_count) },
      requireUserVerification: mode === 'sign_in',
    });
  } catch (err) {
    const message = (err as Error).message;
    if (/counter value/i.test(message)) throw signCountRefusal();
    throw new CeremonyRefused('verification_failed', `The assertion could not be verified: ${message}`);
  }
  if (!verified.verified) throw new CeremonyRefused('verification_failed', 'The assertion could not be verified: the signature does not match.');
  await recordUse(db, credential.id, verified.authenticationInfo.newCounter);
  return found;
}
