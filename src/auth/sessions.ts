import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CurrentUser, Services } from '../api/context.ts';
import type { Queryable } from '../db/database.ts';
import type { Settings } from '../config/settings/store.ts';
import { toCurrentUser } from './basic.ts';
import { secondFactorRequiredSql } from './second-factor.ts';

/** Name of the session cookie; announced to clients in the X-API-Session-Cookie-Name header. */
export const SESSION_COOKIE = 'svc_sessionid';
export const CSRF_COOKIE = 'csrftoken';
export const SESSION_COOKIE_HEADER = 'X-API-Session-Cookie-Name';
/** The csrftoken cookie lives a year, as Django's does; it only guards writes of a live session. */
const CSRF_COOKIE_AGE = 31_449_600;

export const hashSessionKey = (key: string) => createHash('sha256').update(key).digest('hex');

const TOKEN_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A CSRF token: 64 letters and digits, the shape of Django's. */
export function newCsrfToken(): string {
  let token = '';
  for (let i = 0; i < 64; i++) token += TOKEN_ALPHABET[randomInt(TOKEN_ALPHABET.length)];
  return token;
}

const CSRF_TOKEN_SHAPE = /^[A-Za-z0-9]{32,64}$/;

export const sessionCookieAge = (settings: Settings) => settings.get<number>('SESSION_COOKIE_AGE');

export function setSessionCookie(services: Services, reply: FastifyReply, key: string, age: number): void {
  reply.setCookie(SESSION_COOKIE, key, { path: '/', httpOnly: true, sameSite: 'lax', secure: services.env.sessionCookieSecure, maxAge: age });
}

export function setCsrfCookie(services: Services, reply: FastifyReply, token: string): void {
  reply.setCookie(CSRF_COOKIE, token, { path: '/', httpOnly: false, sameSite: 'lax', secure: services.env.csrfCookieSecure, maxAge: CSRF_COOKIE_AGE });
}

/** Sets the csrftoken cookie unless the client already holds a well-formed one; answers the token in force. */
export function ensureCsrfCookie(services: Services, request: FastifyRequest, reply: FastifyReply): string {
  const current = request.cookies[CSRF_COOKIE];
  if (current && CSRF_TOKEN_SHAPE.test(current)) return current;
  const token = newCsrfToken();
  setCsrfCookie(services, reply, token);
  return token;
}

export function clearSessionCookie(services: Services, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: services.env.sessionCookieSecure });
}

export function clearCsrfCookie(services: Services, reply: FastifyReply): void {
  reply.clearCookie(CSRF_COOKIE, { path: '/', sameSite: 'lax', secure: services.env.csrfCookieSecure });
}

export interface NewSession {
  key: string;
  /** Sessions of the same user ended because of SESSIONS_PER_USER. */
  evicted: number;
}

/**
 * Starts a session for `user`. The session named by `replacing` (the cookie the client came
 * with) ends, so a login always gets a fresh key. With SESSIONS_PER_USER = N > 0 the user's
 * oldest sessions beyond N end. `secondFactorPassed`: the sign-in was itself a passkey's.
 */
export async function createSession(
  services: Services,
  user: CurrentUser,
  client: { remoteAddr: string; userAgent: string },
  replacing?: string,
  secondFactorPassed = false,
): Promise<NewSession> {
  const key = randomBytes(32).toString('base64url');
  const age = sessionCookieAge(services.settings);
  const limit = services.settings.get<number>('SESSIONS_PER_USER');
  const evicted = await services.db.transaction(async (tx) => {
    // Serializes the logins of one user, so concurrent logins cannot both stay within the limit.
    await tx.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [user.id]);
    if (replacing) await tx.query('DELETE FROM sessions WHERE key_hash = $1', [hashSessionKey(replacing)]);
    await tx.query('DELETE FROM sessions WHERE user_id = $1 AND expires <= now()', [user.id]);
    await tx.query(
      `INSERT INTO sessions (key_hash, user_id, expires, remote_addr, user_agent, second_factor_passed)
       VALUES ($1, $2, now() + make_interval(secs => $3), $4, $5, $6)`,
      [hashSessionKey(key), user.id, age, client.remoteAddr, client.userAgent.slice(0, 512), secondFactorPassed],
    );
    await tx.query('UPDATE users SET last_login = now() WHERE id = $1', [user.id]);
    if (limit <= 0) return 0;
    const ended = await tx.query(
      `DELETE FROM sessions WHERE user_id = $1 AND id NOT IN (
         SELECT id FROM sessions WHERE user_id = $1 ORDER BY created DESC, id DESC LIMIT $2)
       RETURNING id`,
      [user.id, limit],
    );
    return ended.length;
  });
  return { key, evicted };
}

export type SessionLookup =
  /** `secondFactorPending`: the user must pass a second factor (second-factor.ts) and this session has not. */
  | { state: 'active'; user: CurrentUser; age: number; secondFactorPending: boolean }
  /** The key named a session that has expired (or whose user was deactivated); it is deleted now. */
  | { state: 'expired'; userId: number; username: string }
  | { state: 'unknown' };

/**
 * Finds the live session of a cookie and slides it: its expiry moves to now + SESSION_COOKIE_AGE
 * (read now, so a changed setting applies at once). A session idle for longer than the setting,
 * or past its stored expiry, is deleted. Whether the session must still pass a second factor is
 * asked in the same statement, at every request, so an organization that starts asking for one
 * walls the sessions already open.
 */
export async function touchSession(services: Services, key: string): Promise<SessionLookup> {
  const age = sessionCookieAge(services.settings);
  const hash = hashSessionKey(key);
  const required = secondFactorRequiredSql('u.id');
  const [row] = await services.db.query<{ id: number; username: string; is_superuser: boolean; is_system_auditor: boolean; pending: boolean }>(
    `UPDATE sessions s SET last_activity = now(), expires = now() + make_interval(secs => $2)
     FROM users u
     WHERE s.key_hash = $1 AND u.id = s.user_id AND u.is_active
       AND s.expires > now() AND s.last_activity + make_interval(secs => $2) > now()
     RETURNING u.id, u.username, u.is_superuser, u.is_system_auditor, CASE WHEN s.second_factor_passed THEN false ELSE ${required} END AS pending`,
    [hash, age],
  );
  if (row) return { state: 'active', user: toCurrentUser(row), age, secondFactorPending: row.pending };
  const [stale] = await services.db.query<{ id: number; username: string }>(
    `DELETE FROM sessions s USING users u WHERE s.key_hash = $1 AND u.id = s.user_id RETURNING u.id, u.username`,
    [hash],
  );
  return stale ? { state: 'expired', userId: stale.id, username: stale.username } : { state: 'unknown' };
}

/**
 * Marks the live session of a cookie as having passed its second factor, under a new key (so a
 * key seen before the factor is of no use after it); answers the new key, or null when the
 * session is gone.
 */
export async function passSecondFactor(db: Queryable, key: string): Promise<string | null> {
  const fresh = randomBytes(32).toString('base64url');
  const rows = await db.query(
    'UPDATE sessions SET key_hash = $2, second_factor_passed = true WHERE key_hash = $1 AND expires > now() RETURNING id',
    [hashSessionKey(key), hashSessionKey(fresh)],
  );
  return rows.length ? fresh : null;
}

/** Ends the session of a cookie; answers its user, or null when there was none. */
export async function endSession(db: Queryable, key: string): Promise<{ userId: number; username: string } | null> {
  const [row] = await db.query<{ id: number; username: string }>(
    'DELETE FROM sessions s USING users u WHERE s.key_hash = $1 AND u.id = s.user_id RETURNING u.id, u.username',
    [hashSessionKey(key)],
  );
  return row ? { userId: row.id, username: row.username } : null;
}

/** Deletes every expired session (and login failures too old to count, and expired WebAuthn challenges); answers how many sessions. */
export async function deleteExpiredSessions(db: Queryable, settings: Settings): Promise<number> {
  const age = sessionCookieAge(settings);
  const rows = await db.query(
    `DELETE FROM sessions WHERE expires <= now() OR last_activity + make_interval(secs => $1) <= now() RETURNING id`,
    [age],
  );
  await db.query(`DELETE FROM login_failures WHERE attempted < now() - interval '1 day'`);
  await db.query('DELETE FROM webauthn_challenges WHERE expires <= now()');
  return rows.length;
}
