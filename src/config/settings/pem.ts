/**
 * Certificates and keys given as settings: checked to parse, so a stored value is one the
 * sign-in code can use.
 */
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { FieldProblem } from '../../api/fields.ts';

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/;
const MAX_PEM = 64 * 1024;

/**
 * An X.509 certificate as PEM. Identity providers often hand out the bare base64 body (as in
 * their metadata), which is accepted too, as AWX does.
 */
export function certificatePem(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length > MAX_PEM) throw new FieldProblem('The certificate is too long.');
  const found = PEM_CERT.exec(trimmed)?.[0];
  const body = found ?? (/^[A-Za-z0-9+/=\s]+$/.test(trimmed) ? trimmed : null);
  if (!body) throw new FieldProblem('Invalid certificate: expected a PEM-encoded X.509 certificate.');
  const base64 = body.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  const pem = `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch {
    throw new FieldProblem('Invalid certificate: it does not parse as an X.509 certificate.');
  }
  return pem;
}

/** A private key (PEM, unencrypted), as a KeyObject. */
export function privateKeyOf(text: string): KeyObject {
  if (text.length > MAX_PEM) throw new FieldProblem('The private key is too long.');
  if (!/-----BEGIN (RSA |EC )?PRIVATE KEY-----/.test(text)) {
    throw new FieldProblem('Invalid private key: expected an unencrypted PEM-encoded private key.');
  }
  try {
    return createPrivateKey(text);
  } catch {
    throw new FieldProblem('Invalid private key: it does not parse.');
  }
}

/** Whether the private key belongs to the certificate. */
export function keyMatchesCertificate(keyPem: string, certPem: string): boolean {
  const fromKey = createPublicKey(privateKeyOf(keyPem)).export({ type: 'spki', format: 'der' });
  const fromCert = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return fromKey.equals(fromCert);
}
