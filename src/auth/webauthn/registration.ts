/**
 * Registering a passkey: a signed-in user asks for creation options, his browser creates a key pair
 * and answers its attestation, which @simplewebauthn/server verifies ("none", or "packed" and the
 * other formats it knows). Only from a browser session. A session that must still pass its second
 * factor may register only while the user has no passkey at all (his first enrollment), and still
 * has to authenticate with it afterwards.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { generateRegistrationOptions, verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Static } from 'typebox';
import type { Services } from '../../api/context.ts';
import { forbidden } from '../../api/errors.ts';
import { serializeRow } from '../../api/serialize.ts';
import { validBody } from '../../api/route-schemas.ts';
import { recordActivity, snapshot } from '../../activity/record.ts';
import { clientOf, recordAudit } from '../../audit/record.ts';
import type { WebauthnCredentialRow } from '../../db/tables.ts';
import { secondFactorRequiredError } from '../second-factor.ts';
import { SESSION_COOKIE } from '../sessions.ts';
import { CHALLENGE_TTL_SECONDS, ceremonyKey, consumeChallenge, CEREMONY_COOKIE, newChallenge, storeChallenge } from './challenges.ts';
import { countCredentials, credentialsOf, MAX_CREDENTIALS_PER_USER, userHandle } from './credential-store.ts';
import { CeremonyRefused } from './refusals.ts';
import { acceptedOrigin, readClientData, relyingParty } from './relying-party.ts';
import { RegisterCompleteBody } from './webauthn-schemas.ts';

/** The browser session registering: the caller and the session key (a token or Basic caller registers nothing). */
function registeringSession(request: FastifyRequest) {
  const key = request.cookies[SESSION_COOKIE];
  if (request.ctx.authMethod !== 'session' || !key) {
    throw forbidden('Passkeys are registered from a browser session (signed in at /api/login/), not with a token or Basic authentication.');
  }
  return { user: request.ctx.user!, key, pending: request.ctx.secondFactorPending === true };
}

const tooMany = () => new CeremonyRefused('too_many_credentials', `You have ${MAX_CREDENTIALS_PER_USER} passkeys, the most one user may register: delete one first.`);

/** POST register/begin/: the creation options, the challenge stored for this browser and user. */
export async function beginRegistration(services: Services, request: FastifyRequest, reply: FastifyReply) {
  const { db } = services;
  const { user, key, pending } = registeringSession(request);
  const existing = await credentialsOf(db, user.id);
  if (pending && existing.length) throw secondFactorRequiredError();
  if (existing.length >= MAX_CREDENTIALS_PER_USER) throw tooMany();
  const rp = relyingParty(request);
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.username,
    userID: new Uint8Array(Buffer.from(await userHandle(db, user.id), 'base64url')),
    challenge: newChallenge(),
    timeout: CHALLENGE_TTL_SECONDS * 1000,
    attestationType: 'none',
    excludeCredentials: existing.map((c) => ({ id: c.credential_id, transports: c.transports })),
    // A discoverable credential when the authenticator can keep one, so that it also signs in without a username.
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
  await storeChallenge(db, options.challenge, {
    mode: 'register', userId: user.id, ceremonyKey: ceremonyKey(services, request, reply), sessionKey: key, remoteAddr: request.ip,
  });
  return options;
}

/** POST register/complete/: the attestation verified, the credential stored (201 with it). */
export async function completeRegistration(services: Services, request: FastifyRequest, reply: FastifyReply) {
  const { db } = services;
  const { user, key, pending } = registeringSession(request);
  const body = validBody(request, RegisterCompleteBody);
  const client = clientOf(request);
  const audit = (outcome: 'success' | 'failure', detail: Record<string, unknown>, target?: { id: number; name: string }) =>
    recordAudit(db, { type: 'webauthn.registered', outcome, ctx: request.ctx, target: target && { type: 'webauthn_credential', ...target }, client, detail });
  try {
    const row = await register(services, request, body, { userId: user.id, key, pending });
    await audit('success', { credential_id: row.credential_id, aaguid: row.aaguid, attestation_format: row.attestation_format }, { id: row.id, name: row.label });
    const credentials = services.resources.get('webauthn_credential');
    return reply.code(201).send(await serializeRow(db, request.ctx, credentials, row));
  } catch (err) {
    if (err instanceof CeremonyRefused) await audit('failure', { reason: err.reason });
    throw err;
  }
}

async function register(
  services: Services, request: FastifyRequest, body: Static<typeof RegisterCompleteBody>, who: { userId: number; key: string; pending: boolean },
): Promise<WebauthnCredentialRow> {
  const { db } = services;
  const ceremony = request.cookies[CEREMONY_COOKIE];
  if (!ceremony) throw new CeremonyRefused('no_ceremony', 'No registration is under way in this browser (its ceremony cookie is missing): begin again.');
  const clientData = readClientData(body.credential.response.clientDataJSON);
  const challenge = await consumeChallenge(db, clientData.challenge, { mode: 'register', ceremonyKey: ceremony, sessionKey: who.key });
  if (challenge.state === 'expired') throw new CeremonyRefused('expired_challenge', 'The registration took too long (its challenge expired): begin again.');
  if (challenge.state === 'unknown' || challenge.userId !== who.userId) {
    throw new CeremonyRefused('unknown_challenge', 'The credential answers no registration under way in this browser (the challenge is unknown or already used): begin again.');
  }
  const origin = acceptedOrigin(services, request, clientData);
  let verified;
  try {
    verified = await verifyRegistrationResponse({
      response: body.credential as RegistrationResponseJSON,
      expectedChallenge: clientData.challenge,
      expectedOrigin: origin,
      expectedRPID: relyingParty(request).id,
      requireUserVerification: false,
    });
  } catch (err) {
    throw new CeremonyRefused('verification_failed', `The credential could not be verified: ${(err as Error).message}`);
  }
  if (!verified.verified) throw new CeremonyRefused('verification_failed', 'The credential could not be verified.');
  const info = verified.registrationInfo;
  if (body.credential.id.replace(/=+$/, '') !== info.credential.id) {
    throw new CeremonyRefused('malformed', 'The credential\'s id is not the one its authenticator attested.');
  }
  const transports = (body.credential.response.transports ?? []).filter((t, i, all) => all.indexOf(t) === i);
  return db.transaction(async (tx) => {
    // One enrollment at a time per user: the first-enrollment rule and the limit hold under concurrent completions.
    await tx.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [who.userId]);
    const count = await countCredentials(tx, who.userId);
    if (who.pending && count > 0) throw secondFactorRequiredError();
    if (count >= MAX_CREDENTIALS_PER_USER) throw tooMany();
    const [taken] = await tx.query('SELECT 1 FROM webauthn_credentials WHERE credential_id = $1', [info.credential.id]);
    if (taken) throw new CeremonyRefused('already_registered', 'This credential is already registered.');
    const [row] = await tx.query<WebauthnCredentialRow>(
      `INSERT INTO webauthn_credentials (user_id, credential_id, public_key, sign_count, transports, aaguid, backup_eligible, backed_up,
         attestation_format, label, created_by_id, modified_by_id)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9, $10, $1, $1) RETURNING *`,
      [
        who.userId, info.credential.id, Buffer.from(info.credential.publicKey), info.credential.counter, JSON.stringify(transports), info.aaguid,
        info.credentialDeviceType === 'multiDevice', info.credentialBackedUp, info.fmt, body.label?.trim() || `Passkey ${count + 1}`,
      ],
    );
    await recordActivity(tx, request.ctx, { operation: 'create', object1: 'webauthn_credential', object1Id: row.id, changes: snapshot(services.resources.get('webauthn_credential'), row) });
    return row;
  }).catch((err: unknown) => {
    if ((err as { constraint?: string }).constraint === 'webauthn_credentials_credential_id_key') {
      throw new CeremonyRefused('already_registered', 'This credential is already registered.');
    }
    throw err;
  });
}
