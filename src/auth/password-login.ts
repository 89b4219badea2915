import type { CurrentUser, RequestContext } from '../api/context.ts';
import type { Queryable } from '../db/database.ts';
import { recordAudit } from '../audit/record.ts';
import { checkPassword } from './basic.ts';
import { checkThrottle, clearUsernameFailures, recordLoginFailure, type Throttled } from './throttle.ts';

export type PasswordLoginResult = { user: CurrentUser } | { throttled: Throttled } | { invalid: true };

const attempt: RequestContext = { user: null, authMethod: null, tokenScope: null };

/**
 * One username-and-password login attempt, wherever it comes from (the login form, the OAuth2
 * password grant): throttled per username and address, each refusal audited. The caller audits
 * the success once it has done what the login is for.
 */
export async function attemptPasswordLogin(
  db: Queryable,
  username: string,
  password: string,
  client: { remoteAddr: string; userAgent: string },
  detail: Record<string, unknown> = {},
): Promise<PasswordLoginResult> {
  const throttled = await checkThrottle(db, username, client.remoteAddr);
  if (throttled) {
    await recordAudit(db, {
      type: 'auth.throttled',
      outcome: 'denied',
      ctx: attempt,
      actorUsername: username,
      client,
      detail: { scope: throttled.scope, retry_after: throttled.retryAfter, ...detail },
    });
    return { throttled };
  }
  const user = await checkPassword(db, username, password);
  if (!user) {
    await recordLoginFailure(db, username, client.remoteAddr);
    await recordAudit(db, { type: 'auth.login', outcome: 'failure', ctx: attempt, actorUsername: username, client, detail: { reason: 'invalid_credentials', ...detail } });
    return { invalid: true };
  }
  await clearUsernameFailures(db, username);
  return { user };
}
