/**
 * Secret settings are encrypted at rest: AES-256-GCM with a key derived (HKDF-SHA256) from
 * SVC_SECRET_KEY and the setting's name, so each setting has a key of its own.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = '$encrypted$AESGCM$';

function keyFor(secretKey: string, name: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, 'drover-settings', name, 32));
}

export function encryptSetting(secretKey: string, name: string, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFor(secretKey, name), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

export class UndecryptableSetting extends Error {}

/** The stored value of a secret setting in clear; a value stored before it became secret is answered as is. */
export function decryptSetting(secretKey: string, name: string, stored: unknown): unknown {
  if (typeof stored !== 'string' || !stored.startsWith(PREFIX)) return stored;
  const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFor(secretKey, name), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8'));
  } catch {
    throw new UndecryptableSetting(`setting ${name} cannot be decrypted (was SVC_SECRET_KEY changed?)`);
  }
}
