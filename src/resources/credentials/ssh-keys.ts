/**
 * Checks that an ssh_private_key input holds exactly one private key, in PEM (PKCS#1, PKCS#8,
 * SEC1, DSA; node:crypto parses the unencrypted ones) or OpenSSH format, and tells whether it is
 * encrypted. No message ever quotes the key.
 */
import { createPrivateKey } from 'node:crypto';

export class KeyProblem extends Error {}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;
const BASE64 = /^[A-Za-z0-9+/=\s]+$/;
const OPENSSH_MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');

/** Answers whether the key is encrypted (needs a passphrase); throws KeyProblem when it is not one private key. */
export function inspectPrivateKey(text: string): { encrypted: boolean } {
  // GCE service-account keys pasted from their JSON file keep an escaped "=" (as AWX tolerates).
  const data = text.replace(/\\u003d/g, '=');
  const blocks = [...data.matchAll(BLOCK)];
  const keys = blocks.filter(([, label]) => label.endsWith('PRIVATE KEY'));
  if (!keys.length) throw new KeyProblem('Invalid certificate or key: no private key in PEM or OpenSSH format was found.');
  if (keys.length > 1) throw new KeyProblem('Only one private key is allowed.');
  const strange = blocks.find(([, label]) => !label.endsWith('PRIVATE KEY') && label !== 'CERTIFICATE');
  if (strange) throw new KeyProblem(`Invalid certificate or key: unexpected "${strange[1]}" block.`);
  const [whole, label, body] = keys[0];
  if (label === 'OPENSSH PRIVATE KEY') return { encrypted: openSshKeyIsEncrypted(body) };
  if (label === 'ENCRYPTED PRIVATE KEY' || /^Proc-Type:\s*4,ENCRYPTED/m.test(body)) {
    const payload = body.split(/\r?\n\r?\n/).pop() ?? '';
    if (!BASE64.test(payload) || !Buffer.from(payload, 'base64').length) throw new KeyProblem('Invalid private key: the encrypted key data is damaged.');
    return { encrypted: true };
  }
  try {
    createPrivateKey({ key: whole, format: 'pem' });
  } catch {
    throw new KeyProblem('Invalid private key: unsupported key type or damaged key data.');
  }
  return { encrypted: false };
}

/** Reads the OpenSSH container (PROTOCOL.key): cipher "none" means unencrypted. */
function openSshKeyIsEncrypted(body: string): boolean {
  const damaged = () => new KeyProblem('Invalid private key: the OpenSSH key data is damaged.');
  if (!BASE64.test(body)) throw damaged();
  const raw = Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (raw.length < OPENSSH_MAGIC.length || !raw.subarray(0, OPENSSH_MAGIC.length).equals(OPENSSH_MAGIC)) throw damaged();
  let offset = OPENSSH_MAGIC.length;
  const uint32 = () => {
    if (offset + 4 > raw.length) throw damaged();
    const value = raw.readUInt32BE(offset);
    offset += 4;
    return value;
  };
  const string = () => {
    const length = uint32();
    if (offset + length > raw.length) throw damaged();
    const value = raw.subarray(offset, offset + length);
    offset += length;
    return value;
  };
  const cipher = string().toString('latin1');
  string(); // kdf name
  string(); // kdf options
  if (uint32() !== 1) throw new KeyProblem('Only one private key is allowed.');
  string(); // public key
  const secret = string();
  if (cipher !== 'none') return true;
  // Unencrypted: the private section starts with two equal check numbers.
  if (secret.length < 8 || secret.readUInt32BE(0) !== secret.readUInt32BE(4)) throw damaged();
  return false;
}
