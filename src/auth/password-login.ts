import type { FastifyReply } from 'fastify';
import { callerIn, type AuthMethod, type CurrentUser, type RequestContext, type Services } from '../api/context.ts';
import { ApiError } from '../api/errors.ts';
import type { Queryable } from '../db/database.ts';
import { recordAudit } from '../audit/record.ts';
import { userByNameJson, type UserRow } from './basic.ts';
import { PASSWORD_BACKENDS } from './external/backend-order.ts';
import { externalPasswordLogin } from './external/password-backends.ts';
import { checkThrottleAlso, clearUsernameFailures, pruneFailures, reserveAttempt, type Throttled } from './throttle.ts';

/**
 * `secondFactorRequired`: whether the user must pass a second factor, when the check read it with
 * the local user's row (not for a user an external source signed in).
 */
export type PasswordLoginResult = { user: CurrentUser; secondFactorRequired?: boolean } | { throttled: Throttled } | { invalid: true };

export interface PasswordAttemptOptions {
  /** How the credentials came, recorded in the audit events (`basic` for Authorization: Basic). */
  authMethod?: AuthMethod | null;
  /**
   * Whether a success clears the username's failures. A login does. A Basic request does not: a
   * script sending the right password every few seconds would otherwise reset the count of
   * whoever guesses at its account; its failures age out of the window instead.
   */
  clearOnSuccess?: boolean;
}

export const TOO_MANY_ATTEMPTS = (retryAfter: number) => `Too many failed login attempts. Try again in ${retryAfter} seconds.`;

/** The 429 answer of an API request whose credentials the throttle refuses, with its Retry-After header. */
export function throttledError(reply: FastifyReply, throttled: Throttled): ApiError {
  reply.header('Retry-After', String(throttled.retryAfter));
  return new ApiError(429, { detail: TOO_MANY_ATTEMPTS(throttled.retryAfter) });
}

/** The audit event of an attempt the throttle refused. */
export async function recordThrottled(
  db: Queryable,
  ctx: RequestContext,
  client: { remoteAddr: string; userAgent: string },
  throttled: Throttled,
  extra: { actorUsername?: string; detail?: Record<string, unknown> } = {},
): Promise<void> {
  await recordAudit(db, {
    type: 'auth.throttled',
    outcome: 'denied',
    ctx,
    actorUsername: extra.actorUsername,
    client,
    detail: { scope: throttled.scope, retry_after: throttled.retryAfter, ...extra.detail },
  });
}

/**
 * One username-and-password check, wherever it comes from (the login form, the OAuth2 password
 * grant, Basic authentication): throttled per username and address, each refusal audited. The
 * caller audits the success once it has done what the login is for.
 *
 * The throttle comes first, so a throttled user is refused even with the right password, cached
 * or not. Credentials that verified before pass without a write; any other attempt is counted as
 * a failure before the slow check (see reserveAttempt) and released if it succeeds.
 */
export async function attemptPasswordLogin(
  services: Pick<Services, 'db' | 'settings' | 'env' | 'resources' | 'caches'>,
  username: string,
  password: string,
  client: { remoteAddr: string; userAgent: string },
  detail: Record<string, unknown> = {},
  options: PasswordAttemptOptions = {},
): Promise<PasswordLoginResult> {
  const { authMethod = null, clearOnSuccess = true } = options;
  const { db } = services;
  const attempt = callerIn(services, null, authMethod);
  const refuse = async (throttled: Throttled): Promise<PasswordLoginResult> => {
    await recordThrottled(db, attempt, client, throttled, { actorUsername: username, detail });
    return { throttled };
  };

  // One round trip for the throttle and the user, as every Basic-authenticated request asks both.
  const { throttled, also: row } = await checkThrottleAlso<UserRow | null>(db, username, client.remoteAddr, userByNameJson, [username]);
  if (throttled) return refuse(throttled);
  const found = services.caches.passwords.lookup(row, username, password);
  if ('cached' in found) {
    if (clearOnSuccess) await clearUsernameFailures(db, username);
    return { user: found.cached, secondFactorRequired: row?.second_factor_required };
  }
  return services.caches.passwords.shared(username, password, client.remoteAddr, async (): Promise<PasswordLoginResult> => {
    const reserved = await reserveAttempt(db, username, client.remoteAddr);
    if (reserved.throttled) {
      await reserved.release();
      return refuse(reserved.throttled);
    }
    const local = await found.verify();
    const user = local ?? (await externalPasswordLogin(PASSWORD_BACKENDS, services, username, password, client, row, authMethod));
    if (!user) {
      await pruneFailures(db);
      await recordAudit(db, { type: 'auth.login', outcome: 'failure', ctx: attempt, actorUsername: username, client, detail: { reason: 'invalid_credentials', ...detail } });
      return { invalid: true };
    }
    await reserved.release();
    if (clearOnSuccess) await clearUsernameFailures(db, username);
    return { user, ...(local && { secondFactorRequired: row?.second_factor_required }) };
  });
}
