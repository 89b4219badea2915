import type { FastifyRequest } from 'fastify';
import type { Services } from '../api/context.ts';
import { parseBearerHeader } from '../auth/bearer-auth.ts';
import { hashSecret } from '../auth/oauth2.ts';
import { hashSessionKey, SESSION_COOKIE } from '../auth/sessions.ts';

/** Answers why the credentials a socket was opened with no longer hold, or null while they do. */
export type CredentialCheck = () => Promise<string | null>;

/**
 * The check for the credentials of an accepted upgrade: its token or session must still exist
 * and be unexpired, and its user active. Only hashes are kept, never the credential itself.
 */
export function credentialCheck(services: Services, request: FastifyRequest): CredentialCheck {
  const { db } = services;
  const userId = request.ctx.user?.id ?? 0;
  const token = parseBearerHeader(request.headers.authorization);
  if (request.ctx.authMethod === 'token' && token) {
    const hash = hashSecret(token);
    return async () => {
      const rows = await db.query(
        'SELECT 1 FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1 AND t.expires > now() AND u.is_active',
        [hash],
      );
      return rows.length ? null : 'The token is no longer valid.';
    };
  }
  const sessionKey = request.cookies[SESSION_COOKIE];
  if (request.ctx.authMethod === 'session' && sessionKey) {
    const hash = hashSessionKey(sessionKey);
    return async () => {
      const rows = await db.query(
        'SELECT 1 FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.key_hash = $1 AND s.expires > now() AND u.is_active',
        [hash],
      );
      return rows.length ? null : 'Your session has expired or ended. Log in again.';
    };
  }
  return async () => {
    const rows = await db.query('SELECT 1 FROM users WHERE id = $1 AND is_active', [userId]);
    return rows.length ? null : 'User inactive or deleted.';
  };
}
