import type { Queryable } from '../db/database.ts';

/**
 * Brute-force protection of the login endpoint. Failures are rows in login_failures, so every
 * node of a cluster counts the same failures. A username is refused after USERNAME_LIMIT
 * failures within WINDOW_SECONDS, a client address after ADDRESS_LIMIT (higher: many people may
 * share one address behind a NAT). A successful login clears the username's failures only, so
 * logging in to one's own account does not reset the counter of an address that guesses others.
 */
export const WINDOW_SECONDS = 60;
export const USERNAME_LIMIT = 5;
export const ADDRESS_LIMIT = 20;

export type ThrottleScope = 'username' | 'address';

export interface Throttled {
  scope: ThrottleScope;
  /** Seconds until another attempt will be considered. */
  retryAfter: number;
}

const usernameKey = (username: string) => username.toLowerCase();

/** Seconds until the failures of one key drop below `limit`, or 0 when they already are below it. */
async function waitFor(db: Queryable, kind: ThrottleScope, key: string, limit: number): Promise<number> {
  // The limit-th most recent failure in the window: once it ages out, fewer than `limit` remain.
  const [row] = await db.query<{ wait: number }>(
    `SELECT extract(epoch FROM attempted + make_interval(secs => $3) - now())::float8 AS wait
     FROM login_failures
     WHERE kind = $1 AND key = $2 AND attempted > now() - make_interval(secs => $3)
     ORDER BY attempted DESC OFFSET $4 LIMIT 1`,
    [kind, key, WINDOW_SECONDS, limit - 1],
  );
  return row ? Math.max(1, Math.ceil(row.wait)) : 0;
}

/** Whether a login for `username` from `address` must be refused now, and for how long. */
export async function checkThrottle(db: Queryable, username: string, address: string): Promise<Throttled | null> {
  const byUser = await waitFor(db, 'username', usernameKey(username), USERNAME_LIMIT);
  const byAddress = address ? await waitFor(db, 'address', address, ADDRESS_LIMIT) : 0;
  if (!byUser && !byAddress) return null;
  return byUser >= byAddress ? { scope: 'username', retryAfter: byUser } : { scope: 'address', retryAfter: byAddress };
}

export async function recordLoginFailure(db: Queryable, username: string, address: string): Promise<void> {
  await db.query(
    `INSERT INTO login_failures (kind, key) VALUES ('username', $1)${address ? `, ('address', $2)` : ''}`,
    address ? [usernameKey(username), address] : [usernameKey(username)],
  );
  // Failures older than the window no longer count; keep the table small.
  await db.query(`DELETE FROM login_failures WHERE attempted < now() - make_interval(secs => $1)`, [WINDOW_SECONDS * 10]);
}

export async function clearUsernameFailures(db: Queryable, username: string): Promise<void> {
  await db.query(`DELETE FROM login_failures WHERE kind = 'username' AND key = $1`, [usernameKey(username)]);
}
