/**
 * Re-encryption of every stored secret under a new service secret key (drover manage
 * regenerate_secret_key). Each owner of encrypted values says how to re-encrypt its own (the composition root lists them);
 * secret settings, with their own scheme, are built in.
 */
import type { Queryable } from '../db/database.ts';
import { decryptSetting, encryptSetting } from '../config/settings/secret-value.ts';
import { decryptWithKey, encryptWithKey } from './encryption.ts';

/** Turns a value stored for `purpose` under the old key into the same value under the new key. */
export type Recrypt = (purpose: string, stored: string) => string;

export interface SecretStore {
  /** What the values are, for the command's report ("credential inputs"). */
  name: string;
  /** Re-encrypts every value of the store in `tx`; answers how many values changed. */
  reencrypt(tx: Queryable, recrypt: Recrypt): Promise<number>;
}

/** Secret settings keep their scheme (src/config/settings/secret-value.ts); only their key changes. */
async function reencryptSettings(tx: Queryable, oldKey: string, newKey: string): Promise<number> {
  const rows = await tx.query<{ key: string; value: unknown }>(`SELECT key, value FROM settings WHERE jsonb_typeof(value) = 'string' FOR UPDATE`);
  let count = 0;
  for (const { key, value } of rows) {
    if (typeof value !== 'string' || !value.startsWith('$encrypted$')) continue;
    const clear = decryptSetting(oldKey, key, value);
    await tx.query('UPDATE settings SET value = $2::jsonb WHERE key = $1', [key, JSON.stringify(encryptSetting(newKey, key, clear))]);
    count += 1;
  }
  return count;
}

/** Re-encrypts everything in `tx`; answers the number of values per store. Throws when a value cannot be decrypted. */
export async function reencryptAll(tx: Queryable, stores: readonly SecretStore[], oldKey: string, newKey: string): Promise<Record<string, number>> {
  const recrypt: Recrypt = (purpose, stored) => encryptWithKey(newKey, purpose, decryptWithKey(oldKey, purpose, stored));
  const counts: Record<string, number> = { settings: await reencryptSettings(tx, oldKey, newKey) };
  for (const store of stores) counts[store.name] = await store.reencrypt(tx, recrypt);
  return counts;
}
