import { createHmac, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { Queryable } from '../db/database.ts';
import type { CurrentUser } from '../api/context.ts';
import { secondFactorRequiredSql } from './second-factor.ts';

declare module '../api/context.ts' {
  interface ServiceCaches {
    /** Credentials that verified against the stored hash (Basic auth and the login form skip argon2 on a repeat). */
    passwords: VerifiedPasswords;
  }
}

export interface UserRow {
  id: number;
  username: string;
  password: string;
  is_superuser: boolean;
  is_system_auditor: boolean;
  is_active: boolean;
  ldap_dn?: string;
  external_account?: string | null;
  /** Whether the user must pass a second factor (second-factor.ts), read with the row by password checks. */
  second_factor_required?: boolean;
}

export function toCurrentUser(row: Pick<UserRow, 'id' | 'username' | 'is_superuser' | 'is_system_auditor'>): CurrentUser {
  return { id: row.id, username: row.username, isSuperuser: row.is_superuser, isSystemAuditor: row.is_system_auditor };
}

/**
 * A username and password looked up: `cached` when these very credentials verified against the
 * stored hash before (no slow check needed), else `verify` runs the argon2 check.
 */
export type PasswordLookup = { cached: CurrentUser } | { verify: () => Promise<CurrentUser | null> };

const USER_COLUMNS = 'id, username, password, is_superuser, is_system_auditor, is_active, ldap_dn, external_account';

/**
 * The user row a username names as an SQL expression (json, null when none) whose one parameter,
 * the username, is $n: for a query that asks something else in the same round trip. It also says
 * whether the user must pass a second factor, which Basic authentication asks of every request.
 */
export const userByNameJson = (n: number) =>
  `(SELECT to_jsonb(u) FROM (SELECT ${USER_COLUMNS}, ${secondFactorRequiredSql('users.id')} AS second_factor_required FROM users WHERE username = $${n}) u)`;

// Remembers which credentials already verified against which stored hash, so repeated requests
// skip the deliberately slow argon2 check. The user's row is read on every request, so a changed
// password (a new stored hash), a deactivated or a deleted user never passes on an old entry. The
// key is an HMAC of the username and password under a key of this service, so the memory holds
// nothing that a fast offline guess could test. The least recently used entry goes first when it is full.
const MAX_VERIFIED = 1000;

/** The passwords one service has verified (made by the composition root, one per service). */
export class VerifiedPasswords {
  private readonly verified = new Map<string, string>();
  private readonly cacheKeySecret = randomBytes(32);
  // Checks under way, so that a burst of requests with the same new credentials runs argon2 once.
  private readonly verifying = new Map<string, Promise<boolean>>();
  // Whole attempts under way (see shared), by credentials and address.
  private readonly attempts = new Map<string, Promise<unknown>>();
  private decoy: Promise<string> | undefined;

  private keyOf(username: string, password: string): string {
    return createHmac('sha256', this.cacheKeySecret).update(username).update('\0').update(password).digest('base64');
  }

  /**
   * Runs `attempt` once for requests that send the same new credentials from the same address at
   * the same time; the others share its answer. Each attempt is counted as a failure until it
   * succeeds, so a burst of correct ones would otherwise throttle its own user.
   */
  shared<T>(username: string, password: string, address: string, attempt: () => Promise<T>): Promise<T> {
    const key = `${this.keyOf(username, password)}\0${address}`;
    let pending = this.attempts.get(key) as Promise<T> | undefined;
    if (!pending) {
      pending = attempt().finally(() => this.attempts.delete(key));
      this.attempts.set(key, pending);
    }
    return pending;
  }

  private timingDecoy(): Promise<string> {
    return (this.decoy ??= hash(randomBytes(16).toString('hex')));
  }

  /** The user row already read (null or undefined when the username names none) with the password given. */
  lookup(row: UserRow | null | undefined, username: string, password: string): PasswordLookup {
    if (!row || !row.is_active || !row.password) {
      // Spend the same time as a real check, so the answer does not tell which usernames exist.
      return { verify: async () => (await verify(await this.timingDecoy(), password).catch(() => false), null) };
    }
    const key = this.keyOf(username, password);
    if (this.verified.get(key) === row.password) {
      // Moves the entry to the end: the Map's order is then least recently used first.
      this.verified.delete(key);
      this.verified.set(key, row.password);
      return { cached: toCurrentUser(row) };
    }
    return {
      verify: async () => {
        const check = `${key}\0${row.password}`;
        let pending = this.verifying.get(check);
        if (!pending) {
          pending = verify(row.password, password)
            .catch(() => false)
            .finally(() => this.verifying.delete(check));
          this.verifying.set(check, pending);
        }
        if (!(await pending)) return null;
        this.verified.delete(key);
        if (this.verified.size >= MAX_VERIFIED) this.verified.delete(this.verified.keys().next().value!);
        this.verified.set(key, row.password);
        return toCurrentUser(row);
      },
    };
  }
}

/**
 * Checks a username and password; answers the user or null. Not throttled: requests go through
 * attemptPasswordLogin (password-login.ts), which counts failures and audits them.
 */
export async function checkPassword(db: Queryable, username: string, password: string, passwords = new VerifiedPasswords()): Promise<CurrentUser | null> {
  const [row] = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE username = $1`, [username]);
  const found = passwords.lookup(row, username, password);
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
