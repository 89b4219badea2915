import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { Queryable } from '../db/database.ts';
import type { CurrentUser } from '../api/context.ts';

interface UserRow {
  id: number;
  username: string;
  password: string;
  is_superuser: boolean;
  is_system_auditor: boolean;
  is_active: boolean;
}

// Remembers which Authorization headers already verified against which stored hash, so repeated
// requests skip the deliberately slow argon2 check. A changed password changes the stored hash,
// which invalidates the entry. The least recently used entry goes first when it is full.
const verified = new Map<string, string>();
const MAX_VERIFIED = 1000;
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

export async function lookupPassword(db: Queryable, username: string, password: string): Promise<PasswordLookup> {
  const [row] = await db.query<UserRow>(
    'SELECT id, username, password, is_superuser, is_system_auditor, is_active FROM users WHERE username = $1',
    [username],
  );
  if (!row || !row.is_active || !row.password) {
    // Spend the same time as a real check, so the answer does not tell which usernames exist.
    return { verify: async () => (await verify(await timingDecoy(), password).catch(() => false), null) };
  }
  const key = createHash('sha256').update(username).update('\0').update(password).digest('base64');
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
