import { createHash, randomInt } from 'node:crypto';
import { ApiError } from '../api/errors.ts';
import type { Queryable } from '../db/database.ts';
import type { Settings } from '../config/settings/store.ts';
import { OAUTH2_PROVIDER_DEFAULT } from '../config/settings/categories/authentication.ts';

/** How tokens, refresh tokens and client secrets read back after their create response (as AWX). */
export const CENSORED = '************';

export const TOKEN_SCOPES = ['read', 'write'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random string of letters and digits (30 characters carry about 178 bits). */
export function randomToken(length = 30): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** What is stored of a token or client secret: its SHA-256, hex. The values are random, so no slow hash is needed. */
export function hashSecret(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

type SettingsReader = Pick<Settings, 'get'>;

function lifetimes(settings: SettingsReader): typeof OAUTH2_PROVIDER_DEFAULT {
  return { ...OAUTH2_PROVIDER_DEFAULT, ...settings.get<Partial<typeof OAUTH2_PROVIDER_DEFAULT>>('OAUTH2_PROVIDER') };
}

// The last instant the database and JavaScript dates both hold comfortably.
const LATEST = Date.UTC(9999, 11, 31);

/** Seconds an access token lives (OAUTH2_PROVIDER.ACCESS_TOKEN_EXPIRE_SECONDS). */
export const accessTokenLifetime = (settings: SettingsReader) => lifetimes(settings).ACCESS_TOKEN_EXPIRE_SECONDS;

/** Seconds a refresh token outlives its access token (OAUTH2_PROVIDER.REFRESH_TOKEN_EXPIRE_SECONDS). */
export const refreshTokenLifetime = (settings: SettingsReader) => lifetimes(settings).REFRESH_TOKEN_EXPIRE_SECONDS;

/** When a token created now expires. */
export function accessTokenExpiry(settings: SettingsReader, now = Date.now()): Date {
  return new Date(Math.min(now + accessTokenLifetime(settings) * 1000, LATEST));
}

/**
 * The external authentication source a user comes from (ldap, saml, a social provider...), or
 * null for a local user.
 */
export function externalAccount(user: { ldap_dn?: string | null; external_account?: string | null }): string | null {
  if (user.ldap_dn) return 'ldap';
  if (user.external_account) return user.external_account;
  return null;
}

/** Refuses (403) tokens for users from external authentication unless ALLOW_OAUTH2_FOR_EXTERNAL_USERS. */
export async function refuseExternalUser(q: Queryable, settings: SettingsReader, userId: number): Promise<void> {
  if (settings.get<boolean>('ALLOW_OAUTH2_FOR_EXTERNAL_USERS')) return;
  const [user] = await q.query('SELECT ldap_dn, external_account FROM users WHERE id = $1', [userId]);
  const account = user ? externalAccount(user) : null;
  if (account !== null) {
    throw new ApiError(403, {
      detail:
        `OAuth2 Tokens cannot be created by users associated with an external authentication provider (${account}). ` +
        'A system administrator may allow it with the setting ALLOW_OAUTH2_FOR_EXTERNAL_USERS.',
    });
  }
}

/**
 * Deletes tokens that can no longer be used: expired, and either without a refresh token or past
 * the refresh token's lifetime too. Answers how many went.
 */
export async function deleteExpiredTokens(q: Queryable, settings: SettingsReader): Promise<number> {
  const rows = await q.query(
    `DELETE FROM tokens WHERE expires < now()
       AND (refresh_token_hash IS NULL OR expires + make_interval(secs => $1) < now())
     RETURNING id`,
    [refreshTokenLifetime(settings)],
  );
  return rows.length;
}
