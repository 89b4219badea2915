import { createHmac, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { Queryable } from '../db/database.ts';
import type { CurrentUser } from '../api/context.ts';

export interface UserRow {
  id: number;
  username: string;
  password: string;
  is_superuser: boolean;
  is_system_auditor: boolean;
  is_active: boolean;
  ldap_dn?: string;
  external_account?: string | null;
}

// Remembers which credentials already verified against which stored hash, so repeated requests
// skip the deliberately slow argon2 check. The user's row is read on every request, so a changed
// password (a new stored hash), a deactivated or a deleted user never passes on an old entry. The
// key is an HMAC of the username and password under a key of this process, so the memory holds
// nothing that a fast offline guess could test. The least recently used entry goes first when it is full.
const verified = new Map<string, string>();
const MAX_VERIFIED = 1000;
const cacheKeySecret = randomBytes(32);
// Checks under way, so that a burst of requests with the same new credentials runs argon2 once.
const verifying = new Map<string, Promise<boolean>>();

export function toCurrentUser(row: Pick<UserRow, 'id' | 'username' | 'is_superuser' | 'is_system_auditor'>): CurrentUser {
  return { id: row.id, username: row.username, isSuperuser: row.is_superuser, isSystemAuditor: row.is_system_auditor };
}

let decoy: Promise<string> | undefined;
const timingDecoy = () => (decoy ??= hash(randomBytes(16).toString('hex')));

/**
 * A username and password looked up: `cached` when these very credentials verified against the
 * stored hash before (no slow check needed), else `verify` runs the argon2 check.
 */
export type PasswordLookup = { cached: CurrentUser } | { verify: () => Promise<CurrentUser | null> };

const USER_COLUMNS = 'id, username, password, is_superuser, is_system_auditor, is_active, ldap_dn, external_account';

/**
 * The user row a username names as an SQL expression (json, null when none) whose one parameter,
 * the username, is $n: for a query that asks something else in the same round trip.
 */
export const userByNameJson = (n: number) => `(SELECT to_jsonb(u) FROM (SELECT ${USER_COLUMNS} FROM users WHERE username = $${n}) u)`;

export async function lookupPassword(db: Queryable, username: string, password: string): Promise<PasswordLookup> {
  const [row] = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE username = $1`, [username]);
  return passwordLookup(row, username, password);
}

/** lookupPassword on the user row already read (null or undefined when the username names none). */
export function passwordLookup(row: UserRow | null | undefined, username: string, password: string): PasswordLookup {
  if (!row || !row.is_active || !row.password) {
    // Spend the same time as a real check, so the answer does not tell which usernames exist.
    return { verify: async () => (await verify(await timingDecoy(), password).catch(() => false), null) };
  }
  const key = createHmac('sha256', cacheKeySecret).update(username).update('\0').update(password).digest('base64');
  if (verified.get(key) === row.password) {
    // Moves the entry to the end: the Map's order is then least recently used first.
    verified.delete(key);
    verified.set(key, row.password);
    return { cached: toCurrentUser(row) };
  }
  return {
    verify: async () => {
      const check = `${key}\0${row.password}`;
      let pending = verifying.get(check);
      if (!pending) {
        pending = verify(row.password, password)
          .catch(() => false)
          .finally(() => verifying.delete(check));
        verifying.set(check, pending);
      }
      if (!(await pending)) return null;
      verified.delete(key);
      if (verified.size >= MAX_VERIFIED) verified.delete(verified.keys().next().value!);
      verified.set(key, row.password);
      return toCurrentUser(row);
    },
  };
}

/**
 * Checks a username and password; answers the user or null. Not throttled: requests go through
 * attemptPasswordLogin (password-login.ts), which counts failures and audits them.
 */
export async function checkPassword(db: Queryable, username: string, password: string): Promise<CurrentUser | null> {
  const found = await lookupPassword(db, username, password);
  return 'cached' in found ? found.cached : found.verify();
}

/** Reads an Authorization: Basic header; null when absent or not basic. */
export function parseBasicHeader(header: string | undefined): { username: string; password: string } | null {
  if (!header || !/^basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
