import type { Queryable } from '../db/database.ts';

/**
 * Brute-force protection of every password check (login, OAuth2 password grant, Basic
 * authentication) and of unknown bearer tokens. Failures are rows in login_failures, so every
 * node of a cluster counts the same failures. A username is refused after USERNAME_LIMIT
 * failures within WINDOW_SECONDS, a client address after ADDRESS_LIMIT (higher: many people may
 * share one address behind a NAT). A successful login clears the username's failures only, so
 * logging in to one's own account does not reset the counter of an address that guesses others
 * (and a successful Basic request clears nothing: see attemptPasswordLogin).
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

/** The largest bigint: "no upper bound" for the id condition below. */
const NO_BOUND = '9223372036854775807';

/**
 * Whether attempts for `username` (null: none) from `address` must be refused now, and for how
 * long, as two columns of a SELECT (by_user, by_address) with their parameters ($1 to $6). Only
 * failures with an id below `before` count (the caller's own reservation is not held against it).
 */
function throttleColumns(username: string | null, address: string, before = NO_BOUND): { columns: string; params: unknown[] } {
  // For each key, the limit-th most recent failure in the window: once it ages out, fewer than the limit remain.
  const wait = (kind: ThrottleScope, key: string, offset: string) =>
    `(SELECT extract(epoch FROM attempted + make_interval(secs => $3) - now())::float8 FROM login_failures
      WHERE kind = '${kind}' AND key = ${key} AND attempted > now() - make_interval(secs => $3) AND id < $4::bigint
      ORDER BY attempted DESC OFFSET ${offset} LIMIT 1)`;
  return {
    columns: `${wait('username', '$1', '$5')} AS by_user, ${wait('address', '$2', '$6')} AS by_address`,
    params: [username === null ? null : usernameKey(username), address || null, WINDOW_SECONDS, before, USERNAME_LIMIT - 1, ADDRESS_LIMIT - 1],
  };
}

function throttledBy(row: { by_user: number | null; by_address: number | null }): Throttled | null {
  const byUser = row.by_user === null ? 0 : Math.max(1, Math.ceil(row.by_user));
  const byAddress = row.by_address === null ? 0 : Math.max(1, Math.ceil(row.by_address));
  if (!byUser && !byAddress) return null;
  return byUser >= byAddress ? { scope: 'username', retryAfter: byUser } : { scope: 'address', retryAfter: byAddress };
}

async function throttleOf(db: Queryable, username: string | null, address: string, before = NO_BOUND): Promise<Throttled | null> {
  const { columns, params } = throttleColumns(username, address, before);
  const [row] = await db.query<{ by_user: number | null; by_address: number | null }>(`SELECT ${columns}`, params);
  return throttledBy(row);
}

/**
 * Whether a login for `username` from `address` must be refused now, and for how long, with a
 * second question in the same query: what every password check asks too (the user its username
 * names). `also(n)` is an SQL expression whose own parameters, `alsoParams`, are numbered from $n;
 * its value is answered beside the verdict.
 */
export async function checkThrottleAlso<T>(
  db: Queryable, username: string, address: string, also: (firstParam: number) => string, alsoParams: readonly unknown[],
): Promise<{ throttled: Throttled | null; also: T }> {
  const { columns, params } = throttleColumns(username, address);
  const [row] = await db.query<{ by_user: number | null; by_address: number | null; also: T }>(
    `SELECT ${columns}, ${also(params.length + 1)} AS also`,
    [...params, ...alsoParams],
  );
  return { throttled: throttledBy(row), also: row.also };
}

/** Whether `address` alone is throttled (for credentials that name no user, such as bearer tokens). */
export function checkAddressThrottle(db: Queryable, address: string): Promise<Throttled | null> {
  return address ? throttleOf(db, null, address) : Promise.resolve(null);
}

/**
 * An attempt counted as a failure before the password is checked, so that a burst of concurrent
 * guesses cannot all pass the throttle before the first of them is recorded: each sees the ones
 * reserved before it. The attempt is either kept as a failure or released when it succeeds.
 */
export interface ReservedAttempt {
  /** Set when the failures reserved before this one already reach a limit. */
  throttled: Throttled | null;
  /** Removes this attempt's rows: it succeeded, or it was refused without checking the password. */
  release(): Promise<void>;
}

export async function reserveAttempt(db: Queryable, username: string, address: string): Promise<ReservedAttempt> {
  const rows = await db.query<{ id: string }>(
    `INSERT INTO login_failures (kind, key) VALUES ('username', $1)${address ? `, ('address', $2)` : ''} RETURNING id::text AS id`,
    address ? [usernameKey(username), address] : [usernameKey(username)],
  );
  const ids = rows.map((r) => r.id);
  const first = ids.reduce((a, b) => (BigInt(a) < BigInt(b) ? a : b));
  return {
    throttled: await throttleOf(db, username, address, first),
    release: async () => {
      await db.query('DELETE FROM login_failures WHERE id = ANY($1::bigint[])', [ids]);
    },
  };
}

/** Counts a failure that names no user (an unknown bearer token) against the address only. */
export async function recordAddressFailure(db: Queryable, address: string): Promise<void> {
  if (!address) return;
  await db.query(`INSERT INTO login_failures (kind, key) VALUES ('address', $1)`, [address]);
  await pruneFailures(db);
}

/** Failures older than the window no longer count; keep the table small. */
export async function pruneFailures(db: Queryable): Promise<void> {
  await db.query(`DELETE FROM login_failures WHERE attempted < now() - make_interval(secs => $1)`, [WINDOW_SECONDS * 10]);
}

export async function clearUsernameFailures(db: Queryable, username: string): Promise<void> {
  await db.query(`DELETE FROM login_failures WHERE kind = 'username' AND key = $1`, [usernameKey(username)]);
}
