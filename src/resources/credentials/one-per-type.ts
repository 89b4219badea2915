/**
 * At most one credential of each type in a template or a saved launch configuration (a schedule, a
 * workflow node), except vault credentials with distinct vault ids: AWX's Credential.unique_hash.
 */
import { ValidationError } from '../../api/errors.ts';
import type { Queryable } from '../../db/database.ts';

interface CredentialInfo {
  id: number;
  credential_type_id: number;
  type_name: string;
  kind: string;
  vault_id: string;
}

/** Where the credentials of an owner are linked: the link table and its column naming the owner. */
export interface CredentialLinks {
  table: string;
  column: string;
}

const credentialInfo = (tx: Queryable, where: string, param: number) =>
  tx.query<CredentialInfo>(
    `SELECT c.id, c.credential_type_id, t.name AS type_name, t.kind, COALESCE(c.inputs->>'vault_id', '') AS vault_id
     FROM credentials c JOIN credential_types t ON t.id = c.credential_type_id WHERE ${where}`,
    [param],
  );

/** What AWX calls the slot a credential fills: its type's name, with the vault id for vaults that have one. */
const slotName = (c: CredentialInfo) => (c.kind === 'vault' && c.vault_id ? `${c.type_name} (id=${c.vault_id})` : c.type_name);
const sameSlot = (a: CredentialInfo, b: CredentialInfo) => a.credential_type_id === b.credential_type_id && (a.kind !== 'vault' || a.vault_id === b.vault_id);

/**
 * The credential already attached to `ownerId` that `credentialId` would share its slot with, and
 * the slot's name; null when it fits.
 */
export async function slotTaken(tx: Queryable, links: CredentialLinks, ownerId: number, credentialId: number): Promise<string | null> {
  const [added] = await credentialInfo(tx, 'c.id = $1', credentialId);
  if (!added) return null;
  const attached = await credentialInfo(tx, `c.id IN (SELECT credential_id FROM ${links.table} WHERE ${links.column} = $1)`, ownerId);
  return attached.some((other) => other.id !== added.id && sameSlot(other, added)) ? slotName(added) : null;
}

/** A template's credentials: 400 on `credentials` as AWX's JobTemplateCredentialsList ("Cannot assign multiple Machine credentials."). */
export async function assertTemplateSlotFree(tx: Queryable, links: CredentialLinks, ownerId: number, credentialId: number): Promise<void> {
  const taken = await slotTaken(tx, links, ownerId, credentialId);
  if (taken) throw ValidationError.field('credentials', `Cannot assign multiple ${taken} credentials.`);
}

/** A saved launch configuration's credentials: 400 as AWX's LaunchConfigCredentialsBase. */
export async function assertLaunchConfigSlotFree(tx: Queryable, links: CredentialLinks, ownerId: number, credentialId: number): Promise<void> {
  const taken = await slotTaken(tx, links, ownerId, credentialId);
  if (taken) throw new ValidationError({ msg: [`This launch configuration already provides a ${taken} credential.`] });
}
