/**
 * Encryption of secret values at rest (credential inputs, survey passwords...): AES-256-GCM with a
 * key derived by HKDF-SHA256 from the service secret key (SVC_SECRET_KEY), a random salt of its own
 * for every value, and an info string naming what the value is ("credential.password"), so that
 * a value cannot be moved to another purpose and no two values share a key.
 *
 * Stored form: "$encrypted$AESGCM$1$" + base64url(salt 16 | iv 12 | tag 16 | ciphertext).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { ApiError } from '../api/errors.ts';

export const ENCRYPTED_PREFIX = '$encrypted$AESGCM$1$';
const SALT = 16;
const IV = 12;
const TAG = 16;

let serviceKey: string | null = null;

/** Sets the service secret key the functions below use (buildApp and the management commands call this). */
export function configureSecretKey(key: string): void {
  if (!key) throw new Error('the secret key must not be empty');
  serviceKey = key;
}

function currentKey(): string {
  if (serviceKey === null) throw new Error('no secret key configured (configureSecretKey was not called)');
  return serviceKey;
}

/**
 * A stored secret that the current key cannot open: the key changed, or the value was damaged.
 * Answered as a 500 with this message when it reaches a request.
 */
export class SecretDecryptionError extends ApiError {
  constructor(readonly purpose: string) {
    super(500, { detail: `The stored secret ${purpose} cannot be decrypted: was SVC_SECRET_KEY changed?` });
    this.name = 'SecretDecryptionError';
  }
}

const deriveKey = (secretKey: string, salt: Buffer, purpose: string) => Buffer.from(hkdfSync('sha256', secretKey, salt, purpose, 32));

/** Whether a stored value is one of ours (as opposed to a plain value such as "ASK"). */
export const isEncryptedSecret = (value: unknown): value is string => typeof value === 'string' && value.startsWith(ENCRYPTED_PREFIX);

/** encryptSecret with an explicit key (for re-encryption under a new key). */
export function encryptWithKey(secretKey: string, purpose: string, plaintext: string): string {
  const salt = randomBytes(SALT);
  const iv = randomBytes(IV);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(secretKey, salt, purpose), iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ENCRYPTED_PREFIX + Buffer.concat([salt, iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** decryptSecret with an explicit key (for re-encryption under a new key). */
export function decryptWithKey(secretKey: string, purpose: string, stored: string): string {
  if (!isEncryptedSecret(stored)) throw new SecretDecryptionError(purpose);
  const raw = Buffer.from(stored.slice(ENCRYPTED_PREFIX.length), 'base64url');
  if (raw.length < SALT + IV + TAG) throw new SecretDecryptionError(purpose);
  try {
    const salt = raw.subarray(0, SALT);
    const decipher = createDecipheriv('aes-256-gcm', deriveKey(secretKey, salt, purpose), raw.subarray(SALT, SALT + IV));
    decipher.setAuthTag(raw.subarray(SALT + IV, SALT + IV + TAG));
    return Buffer.concat([decipher.update(raw.subarray(SALT + IV + TAG)), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretDecryptionError(purpose);
  }
}

/** Encrypts `plaintext` for `purpose` (e.g. "credential.password") under the service secret key. */
export function encryptSecret(purpose: string, plaintext: string): string {
  return encryptWithKey(currentKey(), purpose, plaintext);
}

/** The plaintext of a value made by encryptSecret for the same purpose; SecretDecryptionError when the key is wrong. */
export function decryptSecret(purpose: string, stored: string): string {
  return decryptWithKey(currentKey(), purpose, stored);
}
