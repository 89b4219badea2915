/** The registered credentials and the user handles of their users, as the ceremonies read and write them. */
import { createHmac, randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/database.ts';
import type { WebauthnCredentialRow } from '../../db/tables.ts';
import { CeremonyRefused } from './refusals.ts';

/** Passkeys one user may register at most. */
export const MAX_CREDENTIALS_PER_USER = 25;

export type StoredCredential = Pick<WebauthnCredentialRow, 'id' | 'user_id' | 'credential_id' | 'public_key' | 'sign_count' | 'transports'>;

/** A credential with what a sign-in asks of its user, and the user handle its passkey holds. */
export interface CredentialWithUser {
  credential: StoredCredential;
  user: { id: number; username: string; is_superuser: boolean; is_system_auditor: boolean; is_active: boolean };
  handle: string | null;
}

/** The credential ids (and transports) of the user's passkeys, oldest first. */
export async function credentialsOf(db: Queryable, userId: number): Promise<{ credential_id: string; transports: string[] }[]> {
  const rows = await db.query<{ credential_id: string; transports: unknown }>(
    'SELECT credential_id, transports FROM webauthn_credentials WHERE user_id = $1 ORDER BY id',
    [userId],
  );
  return rows.map((r) => ({ credential_id: r.credential_id, transports: Array.isArray(r.transports) ? (r.transports as string[]) : [] }));
}

export async function countCredentials(db: Queryable, userId: number): Promise<number> {
  const [{ n }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webauthn_credentials WHERE user_id = $1', [userId]);
  return n;
}

/** A credential by the id the browser names it by, with its user. */
export async function findCredential(db: Queryable, credentialId: string): Promise<CredentialWithUser | undefined> {
  const [row] = await db.query<StoredCredential & { username: string; is_superuser: boolean; is_system_auditor: boolean; is_active: boolean; handle: string | null }>(
    `SELECT c.id, c.user_id, c.credential_id, c.public_key, c.sign_count, c.transports,
            u.username, u.is_superuser, u.is_system_auditor, u.is_active, h.handle
     FROM webauthn_credentials c JOIN users u ON u.id = c.user_id LEFT JOIN webauthn_user_handles h ON h.user_id = c.user_id
     WHERE c.credential_id = $1`,
    [credentialId],
  );
  if (!row) return undefined;
  const { username, is_superuser, is_system_auditor, is_active, handle, ...credential } = row;
  return { credential, user: { id: credential.user_id, username, is_superuser, is_system_auditor, is_active }, handle };
}

/**
 * Stores the counter an assertion signed and when the credential was used. The counter must have
 * grown (or both be 0: authenticators without a counter), checked in the statement itself so that
 * two assertions signed with one counter value cannot both pass; refused otherwise.
 */
export async function recordUse(db: Queryable, id: number, counter: number): Promise<void> {
  const rows = await db.query(
    `UPDATE webauthn_credentials SET sign_count = $2, last_used = now()
     WHERE id = $1 AND (sign_count < $2 OR (sign_count = 0 AND $2 = 0)) RETURNING id`,
    [id, counter],
  );
  if (!rows.length) throw signCountRefusal();
}

export const signCountRefusal = () =>
  new CeremonyRefused('sign_count', "The authenticator's signature counter did not move forward: the assertion was replayed, or the passkey was copied.");

/**
 * The user's WebAuthn user handle (base64url of 32 random bytes), made the first time he registers
 * a passkey: random, so that a passkey tells nothing about the account it belongs to.
 */
export async function userHandle(db: Queryable, userId: number): Promise<string> {
  await db.query('INSERT INTO webauthn_user_handles (user_id, handle) VALUES ($1, $2) ON CONFLICT (user_id) DO NOTHING', [
    userId, randomBytes(32).toString('base64url'),
  ]);
  const [{ handle }] = await db.query<{ handle: string }>('SELECT handle FROM webauthn_user_handles WHERE user_id = $1', [userId]);
  return handle;
}

/**
 * The credential ids a username-first sign-in offers for a username that has no passkey (or no
 * account): one that looks like a real one and is the same at every ask, so the answer does not
 * tell which usernames exist.
 */
export function decoyCredentialId(secretKey: string, username: string): string {
  return createHmac('sha256', secretKey).update('webauthn decoy credential\0').update(username).digest().subarray(0, 32).toString('base64url');
}
