import type { FastifyReply, FastifyRequest } from 'fastify';
import { callerIn, type RequestContext, type Services } from '../api/context.ts';
import { ApiError } from '../api/errors.ts';
import { clientOf, recordAudit } from '../audit/record.ts';
import { toCurrentUser } from './basic.ts';
import { hashSecret } from './oauth2.ts';
import type { TokenScope } from './oauth2.ts';
import { recordThrottled, throttledError } from './password-login.ts';
import { checkAddressThrottle, recordAddressFailure } from './throttle.ts';

/** last_used is written at most this often per token, so authenticating is not a write per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

interface TokenRow {
  token_id: number;
  scope: TokenScope;
  expires: Date;
  last_used: Date | null;
  id: number;
  username: string;
  is_superuser: boolean;
  is_system_auditor: boolean;
  is_active: boolean;
}

/** Reads an Authorization: Bearer header; null when absent or another scheme. */
export function parseBearerHeader(header: string | undefined): string | null {
  const match = header ? /^bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match ? match[1] : null;
}

/**
 * An unknown token value counts as a failure of the client's address, in the same counter as
 * failed logins: an address that sprays token guesses is throttled like one that guesses
 * passwords. Only unknown values pay for this; a known token costs no extra query.
 */
async function refuseUnknownToken(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<never> {
  const client = clientOf(request);
  const tokenAttempt = callerIn(services, null, 'token');
  const throttled = await checkAddressThrottle(services.db, client.remoteAddr);
  if (throttled) {
    await recordThrottled(services.db, tokenAttempt, client, throttled);
    throw throttledError(reply, throttled);
  }
  await recordAddressFailure(services.db, client.remoteAddr);
  await recordAudit(services.db, { type: 'auth.login', outcome: 'failure', ctx: tokenAttempt, client, detail: { reason: 'invalid_token' } });
  throw new ApiError(401, { detail: 'Invalid token.' });
}

/**
 * Authorization: Bearer <token>. The token is looked up by its hash; an unknown, expired or
 * revoked token, or one of an inactive user, answers 401.
 */
export async function fromBearerToken(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<RequestContext | null> {
  const header = request.headers.authorization;
  if (!header || !/^bearer\b/i.test(header)) return null;
  const token = parseBearerHeader(header);
  if (!token) throw new ApiError(401, { detail: 'Invalid token header. No credentials provided.' });
  const [row] = await services.db.query<TokenRow>(
    `SELECT tokens.id AS token_id, tokens.scope, tokens.expires, tokens.last_used,
            users.id, users.username, users.is_superuser, users.is_system_auditor, users.is_active
     FROM tokens JOIN users ON users.id = tokens.user_id
     WHERE tokens.token_hash = $1`,
    [hashSecret(token)],
  );
  if (!row) return refuseUnknownToken(services, request, reply);
  const now = Date.now();
  if (new Date(row.expires).getTime() <= now) throw new ApiError(401, { detail: 'Token expired.' });
  if (!row.is_active) throw new ApiError(401, { detail: 'User inactive or deleted.' });
  if (!row.last_used || now - new Date(row.last_used).getTime() >= LAST_USED_RESOLUTION_MS) {
    // The condition keeps concurrent requests (and other nodes) from all writing it.
    await services.db.query(
      `UPDATE tokens SET last_used = now() WHERE id = $1 AND (last_used IS NULL OR last_used < now() - make_interval(secs => $2))`,
      [row.token_id, LAST_USED_RESOLUTION_MS / 1000],
    );
  }
  return callerIn(services, toCurrentUser(row), 'token', row.scope);
}
