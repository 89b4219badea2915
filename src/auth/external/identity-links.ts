/**
 * The links between external identities and local users (table user_identities): an external
 * sign-in finds its user by the source and the subject the source asserts, never by username
 * alone, so a second source asserting a username that exists never reaches that account.
 */
import type { Queryable, TableRow } from '../../db/database.ts';
import { normalizeDn } from './mapping.ts';

export interface IdentityKey {
  /** The backend and which one of its kind: ldap, ldap1..ldap5, saml:<idp>, oidc, github, radius... */
  source: string;
  /** What the source says the user is: LDAP DN (normalized), SAML permanent id, OIDC sub, provider id, RADIUS username. */
  subject: string;
}

/** The key of an identity: LDAP DNs compared as the directory does (case and spaces around separators do not matter). */
export function identityKey(identity: { backend: string; source?: string; uid: string }): IdentityKey {
  return { source: identity.source ?? identity.backend, subject: identity.backend === 'ldap' ? normalizeDn(identity.uid) : identity.uid };
}

/** The user linked to `key`, locked for the sign-in's changes; null when none is. */
export async function linkedUser(tx: Queryable, key: IdentityKey): Promise<TableRow<'users'> | null> {
  const [row] = await tx.query<TableRow<'users'>>(
    `SELECT u.* FROM user_identities i JOIN users u ON u.id = i.user_id WHERE i.source = $1 AND i.subject = $2 FOR UPDATE OF u`,
    [key.source, key.subject],
  );
  return row ?? null;
}

/**
 * Serializes the sign-ins that may link a new identity, so two first sign-ins of one subject (or
 * of one username) cannot both create a user. Sign-ins of linked identities never wait for it.
 */
export async function lockNewLinks(tx: Queryable): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('external-sign-in-identity'))");
}

export async function linkIdentity(tx: Queryable, userId: number, key: IdentityKey): Promise<void> {
  await tx.query('INSERT INTO user_identities (user_id, source, subject) VALUES ($1, $2, $3)', [userId, key.source, key.subject]);
}

export async function noteLinkedLogin(tx: Queryable, key: IdentityKey): Promise<void> {
  await tx.query('UPDATE user_identities SET last_login = now() WHERE source = $1 AND subject = $2', [key.source, key.subject]);
}

/**
 * An LDAP user made before links existed, whom this DN may take up: no link of any source, no
 * local password, and the DN recorded in ldap_dn is this one. Exactly one such user, or none.
 * (Users of the other backends were linked by the migration, from the audit log.)
 */
export async function unlinkedLdapUser(tx: Queryable, dn: string): Promise<TableRow<'users'> | null> {
  const wanted = normalizeDn(dn);
  const rows = await tx.query<TableRow<'users'>>(
    `SELECT * FROM users u WHERE replace(lower(u.ldap_dn), ' ', '') = replace(lower($1), ' ', '') AND u.ldap_dn <> '' AND u.password = ''
       AND NOT EXISTS (SELECT 1 FROM user_identities i WHERE i.user_id = u.id) FOR UPDATE`,
    [dn],
  );
  const matching = rows.filter((row) => normalizeDn(row.ldap_dn) === wanted);
  return matching.length === 1 ? matching[0] : null;
}
