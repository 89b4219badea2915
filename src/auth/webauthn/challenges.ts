/**
 * The challenges of WebAuthn ceremonies under way. Each lives in the database (so a ceremony begun
 * on one node finishes on any), 300 seconds, and is consumed by the first attempt to complete it,
 * whatever that attempt's outcome. It is bound to its purpose (the mode), to the user it is for,
 * to the browser that began it (the ceremony cookie, and the session when there is one).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../api/context.ts';
import { ApiError } from '../../api/errors.ts';
import type { Queryable } from '../../db/database.ts';
import { hashSessionKey } from '../sessions.ts';

export const CHALLENGE_TTL_SECONDS = 300;
/** Sign-in ceremonies under way from one address at most (each one is a row until it expires). */
export const MAX_OPEN_SIGN_INS_PER_ADDRESS = 50;

export const CEREMONY_COOKIE = 'svc_webauthn';
const CEREMONY_PATH = '/api/v2/webauthn/';
const CEREMONY_KEY_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export type CeremonyMode = 'register' | 'second_factor' | 'sign_in';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * The key of the ceremony cookie: the client's when it holds a well-formed one (several tabs may
 * each have a ceremony under way), else a new one. Sent again either way, for the challenge's lifetime.
 */
export function ceremonyKey(services: Services, request: FastifyRequest, reply: FastifyReply): string {
  const current = request.cookies[CEREMONY_COOKIE];
  const key = current && CEREMONY_KEY_SHAPE.test(current) ? current : randomBytes(32).toString('base64url');
  reply.setCookie(CEREMONY_COOKIE, key, {
    path: CEREMONY_PATH, httpOnly: true, sameSite: 'strict', secure: services.env.sessionCookieSecure, maxAge: CHALLENGE_TTL_SECONDS,
  });
  return key;
}

/** A fresh random challenge: its bytes for the options, which answer it base64url-encoded. */
export const newChallenge = () => new Uint8Array(randomBytes(32));

export interface ChallengeBinding {
  mode: CeremonyMode;
  /** The user the ceremony is for; null for a usernameless sign-in or a username no account has. */
  userId: number | null;
  /** A usernameless sign-in: any user's discoverable passkey answers it. */
  anyUser?: boolean;
  ceremonyKey: string;
  /** The session key of the browser (register, second factor); null for a sign-in. */
  sessionKey: string | null;
  remoteAddr: string;
}

/** Stores the challenge (base64url, as the options carry it) of a ceremony that begins. */
export async function storeChallenge(db: Queryable, challenge: string, binding: ChallengeBinding): Promise<void> {
  await db.query('DELETE FROM webauthn_challenges WHERE expires <= now()');
  if (binding.mode === 'sign_in') {
    const [{ open }] = await db.query<{ open: number }>(
      `SELECT count(*)::int AS open FROM webauthn_challenges WHERE remote_addr = $1 AND mode = 'sign_in' AND expires > now()`,
      [binding.remoteAddr],
    );
    if (open >= MAX_OPEN_SIGN_INS_PER_ADDRESS) {
      throw new ApiError(429, { detail: `Too many passkey sign-ins under way from this address; try again in ${CHALLENGE_TTL_SECONDS / 60} minutes.` });
    }
  }
  await db.query(
    `INSERT INTO webauthn_challenges (challenge, mode, user_id, any_user, ceremony_hash, session_hash, remote_addr, expires)
     VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
    [
      challenge, binding.mode, binding.userId, binding.anyUser === true, sha256(binding.ceremonyKey),
      binding.sessionKey === null ? null : hashSessionKey(binding.sessionKey), binding.remoteAddr, CHALLENGE_TTL_SECONDS,
    ],
  );
}

export type ConsumedChallenge =
  | { state: 'live'; userId: number | null; anyUser: boolean }
  | { state: 'expired' }
  | { state: 'unknown' };

/**
 * Takes the challenge a response answers, if this browser began it for this purpose: deleted in
 * the same statement, so that two attempts with one challenge cannot both pass.
 */
export async function consumeChallenge(
  db: Queryable, challenge: string, binding: Pick<ChallengeBinding, 'mode' | 'ceremonyKey' | 'sessionKey'>,
): Promise<ConsumedChallenge> {
  const [row] = await db.query<{ user_id: number | null; any_user: boolean; live: boolean }>(
    `DELETE FROM webauthn_challenges
     WHERE challenge = $1 AND mode = $2 AND ceremony_hash = $3 AND session_hash IS NOT DISTINCT FROM $4
     RETURNING user_id, any_user, expires > now() AS live`,
    [challenge, binding.mode, sha256(binding.ceremonyKey), binding.sessionKey === null ? null : hashSessionKey(binding.sessionKey)],
  );
  if (!row) return { state: 'unknown' };
  return row.live ? { state: 'live', userId: row.user_id, anyUser: row.any_user } : { state: 'expired' };
}
