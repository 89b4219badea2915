/**
 * A software WebAuthn authenticator for tests, standing where a browser and a security key or
 * platform passkey would: real P-256 keys (node:crypto), "none" or "packed" self attestation, real
 * ES256 signatures over authenticatorData || SHA-256(clientDataJSON), a signature counter. It answers
 * the JSON shapes @simplewebauthn/browser hands to a page (RegistrationResponseJSON,
 * AuthenticationResponseJSON). The tiny CBOR encoder here writes only what those need.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

// --- CBOR (RFC 8949): unsigned and negative integers, byte and text strings, arrays, maps. ---

type Cbor = number | string | Uint8Array | Cbor[] | Map<number | string, Cbor>;

function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) {
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(length, 1);
    return b;
  }
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(length, 1);
  return b;
}

export function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  const parts = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

// --- The authenticator ---

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

export interface SoftCredential {
  id: string;
  rpId: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The user handle the relying party gave at registration (base64url). */
  userHandle: string;
  counter: number;
}

export interface CeremonyOverrides {
  /** clientDataJSON's origin (default the authenticator's). */
  origin?: string;
  /** The RP ID whose hash goes into authenticatorData (default the options' rpId / rp.id). */
  rpId?: string;
  /** The counter to sign with (default: the credential's, plus one; registration: 0). */
  counter?: number;
  /** clientDataJSON's challenge (default the options'). */
  challenge?: string;
  /** Whether the user verified (PIN, biometrics); default true. */
  userVerified?: boolean;
  /**
   * Authentication: the credential to answer with (default the first one the options allow, or any
   * of the RP's). Registration: the id to give the new key pair (an authenticator reusing an id).
   */
  credentialId?: string;
  /** Authentication: the userHandle to answer (default the credential's; null for none). */
  userHandle?: string | null;
  /** Authentication: sign with this credential's key instead (a forged assertion). */
  signWith?: SoftCredential;
}

export interface RegistrationResponseJSON {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; attestationObject: string; transports: string[] };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: 'cross-platform' | 'platform';
}

export interface AuthenticationResponseJSON {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: 'cross-platform' | 'platform';
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string };
}

interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];
  readonly aaguid: Buffer;

  constructor(
    /** The page's origin, as a browser puts it in clientDataJSON. */
    readonly origin: string,
    readonly options: { format?: 'none' | 'packed'; backupEligible?: boolean } = {},
  ) {
    this.aaguid = this.options.format === 'packed' ? Buffer.from('f8a011f38c0a4d15800617111f9edc7d', 'hex') : Buffer.alloc(16);
  }

  private authData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter >>> 0);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  private flags(userVerified: boolean): number {
    return FLAG_UP | (userVerified ? FLAG_UV : 0) | (this.options.backupEligible ? FLAG_BE | FLAG_BS : 0);
  }

  /** navigator.credentials.create(): a new key pair for the RP, answered with its attestation. */
  register(options: CreationOptions, overrides: CeremonyOverrides = {}): RegistrationResponseJSON {
    const rpId = overrides.rpId ?? options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = cbor(new Map<number, Cbor>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
    const rawId = overrides.credentialId === undefined ? randomBytes(32) : Buffer.from(overrides.credentialId, 'base64url');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(rawId.length);
    const counter = overrides.counter ?? 0;
    const authData = this.authData(rpId, this.flags(overrides.userVerified ?? true) | FLAG_AT, counter, Buffer.concat([this.aaguid, length, rawId, coseKey]));
    const clientDataJSON = Buffer.from(JSON.stringify({
      type: 'webauthn.create', challenge: overrides.challenge ?? options.challenge, origin: overrides.origin ?? this.origin, crossOrigin: false,
    }));
    const attStmt = this.options.format === 'packed'
      ? new Map<string, Cbor>([['alg', -7], ['sig', sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), privateKey)]])
      : new Map<string, Cbor>();
    const attestationObject = cbor(new Map<string, Cbor>([['fmt', this.options.format ?? 'none'], ['attStmt', attStmt], ['authData', authData]]));
    const credential: SoftCredential = { id: b64url(rawId), rpId, privateKey, publicKey, userHandle: options.user.id, counter };
    this.credentials.push(credential);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal', 'hybrid'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get(): an assertion of one of its credentials, its counter moved on. */
  authenticate(options: RequestOptions, overrides: CeremonyOverrides = {}): AuthenticationResponseJSON {
    const rpId = overrides.rpId ?? options.rpId ?? new URL(this.origin).hostname;
    const allowed = (options.allowCredentials ?? []).map((c) => c.id);
    const credential = overrides.credentialId !== undefined
      ? this.credentials.find((c) => c.id === overrides.credentialId)
      : this.credentials.find((c) => (allowed.length ? allowed.includes(c.id) : c.rpId === rpId));
    if (!credential) throw new Error('the soft authenticator holds no credential these options allow');
    const counter = overrides.counter ?? credential.counter + 1;
    credential.counter = counter;
    const authData = this.authData(rpId, this.flags(overrides.userVerified ?? true), counter);
    const clientDataJSON = Buffer.from(JSON.stringify({
      type: 'webauthn.get', challenge: overrides.challenge ?? options.challenge, origin: overrides.origin ?? this.origin, crossOrigin: false,
    }));
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), (overrides.signWith ?? credential).privateKey);
    const userHandle = overrides.userHandle === undefined ? credential.userHandle : overrides.userHandle;
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(userHandle !== null && { userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
