/**
 * The state of a browser sign-in through a provider, kept server-side (so every node of a cluster
 * finds it) and tied to the browser by a cookie holding the same random value. An answer is
 * accepted once: consuming the state deletes it, so a replayed answer, an answer meant for another
 * browser or an answer after STATE_LIFETIME_SECONDS finds nothing.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../api/context.ts';
import type { Queryable } from '../../db/database.ts';
import { hashSessionKey } from '../sessions.ts';

export const SSO_STATE_COOKIE = 'svc_sso_state';
export const STATE_LIFETIME_SECONDS = 600;

export interface LoginState {
  backend: string;
  nonce: string;
  codeVerifier: string;
  next: string | null;
}

const random = () => randomBytes(32).toString('base64url');

/** Starts a sign-in: stores its state and sets the cookie; answers the state value and nonce to send to the provider. */
export async function beginLogin(
  services: Services,
  reply: FastifyReply,
  backend: string,
  extra: { codeVerifier?: string; next: string | null },
): Promise<{ state: string; nonce: string }> {
  const state = random();
  const nonce = random();
  await services.db.query(`DELETE FROM sso_login_states WHERE expires <= now()`);
  await services.db.query(
    `INSERT INTO sso_login_states (state_hash, backend, nonce, code_verifier, next, expires)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))`,
    [hashSessionKey(state), backend, nonce, extra.codeVerifier ?? '', extra.next, STATE_LIFETIME_SECONDS],
  );
  reply.setCookie(SSO_STATE_COOKIE, state, {
    path: '/sso/',
    httpOnly: true,
    // Lax: the cookie comes back on the top-level redirect from the provider.
    sameSite: 'lax',
    secure: services.env.sessionCookieSecure,
    maxAge: STATE_LIFETIME_SECONDS,
  });
  return { state, nonce };
}

export type StateCheck = { ok: true; login: LoginState } | { ok: false; reason: 'missing_state' | 'state_mismatch' | 'unknown_state' };

function sameValue(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Takes the state of the provider's answer: it must equal the browser's cookie and name a stored,
 * unexpired sign-in of this backend, which is deleted here whatever comes next.
 */
export async function consumeLogin(db: Queryable, request: FastifyRequest, reply: FastifyReply, backend: string, state: unknown): Promise<StateCheck> {
  const cookie = request.cookies[SSO_STATE_COOKIE];
  reply.clearCookie(SSO_STATE_COOKIE, { path: '/sso/' });
  if (typeof state !== 'string' || state === '' || state.length > 256) return { ok: false, reason: 'missing_state' };
  if (!cookie || !sameValue(cookie, state)) return { ok: false, reason: 'state_mismatch' };
  const [row] = await db.query<{ backend: string; nonce: string; code_verifier: string; next: string | null; live: boolean }>(
    `DELETE FROM sso_login_states WHERE state_hash = $1 RETURNING backend, nonce, code_verifier, next, expires > now() AS live`,
    [hashSessionKey(state)],
  );
  if (!row || row.backend !== backend || !row.live) return { ok: false, reason: 'unknown_state' };
  return { ok: true, login: { backend, nonce: row.nonce, codeVerifier: row.code_verifier, next: row.next } };
}
