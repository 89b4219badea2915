/**
 * A SAML identity provider for tests: its own key pair (selfsigned), and real Responses with
 * Assertions signed by xml-crypto, as an IdP posts them to the service provider's ACS.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { generate } from 'selfsigned';
import { SignedXml } from 'xml-crypto';

export interface KeyPair {
  cert: string;
  key: string;
}

export interface TestIdp extends KeyPair {
  entityId: string;
  /** Its single sign-on URL (never fetched: the browser would go there). */
  url: string;
}

export async function keyPair(commonName: string): Promise<KeyPair> {
  const now = new Date();
  // Node makes the RSA key natively (fast); selfsigned makes the certificate around it.
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  const pems = await generate([{ name: 'commonName', value: commonName }], {
    keyPair: { publicKey: keys.publicKey, privateKey: keys.privateKey },
    notBeforeDate: new Date(now.getTime() - 3600_000),
    notAfterDate: new Date(now.getTime() + 365 * 24 * 3600_000),
  });
  return { cert: pems.cert, key: pems.private };
}

export async function createTestIdp(name: string): Promise<TestIdp> {
  return { ...(await keyPair(`${name}.idp.test`)), entityId: `https://${name}.idp.test/metadata`, url: `https://${name}.idp.test/sso` };
}

export interface AssertionOptions {
  /** The AuthnRequest answered; null leaves InResponseTo out (an unsolicited answer). */
  inResponseTo: string | null;
  audience: string;
  /** The ACS URL: Recipient, and Destination unless `destination` says otherwise. */
  acsUrl: string;
  destination?: string | null;
  recipient?: string;
  issuer?: string;
  nameId: string;
  attributes?: Record<string, string | string[]>;
  notBefore?: Date;
  notOnOrAfter?: Date;
  assertionId?: string;
  /** What is signed (default the assertion) and with which key (default the IdP's). */
  sign?: 'assertion' | 'response' | 'both' | 'none';
  signer?: KeyPair;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const newId = () => `_${randomBytes(16).toString('hex')}`;
const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

export function assertionXml(idp: TestIdp, o: AssertionOptions): string {
  const now = new Date();
  const notBefore = iso(o.notBefore ?? new Date(now.getTime() - 60_000));
  const notOnOrAfter = iso(o.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000));
  const inResponseTo = o.inResponseTo ? ` InResponseTo="${esc(o.inResponseTo)}"` : '';
  const attributes = Object.entries(o.attributes ?? {})
    .map(
      ([name, value]) =>
        `<saml:Attribute Name="${esc(name)}">${[value]
          .flat()
          .map((v) => `<saml:AttributeValue>${esc(v)}</saml:AttributeValue>`)
          .join('')}</saml:Attribute>`,
    )
    .join('');
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${o.assertionId ?? newId()}" Version="2.0" IssueInstant="${iso(now)}">` +
    `<saml:Issuer>${esc(o.issuer ?? idp.entityId)}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified">${esc(o.nameId)}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}" Recipient="${esc(o.recipient ?? o.acsUrl)}"${inResponseTo}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${esc(o.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="${newId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
    `</saml:Assertion>`
  );
}

/** Signs the element `localName` (the first one) of `xml`, the signature placed after its Issuer. */
export function signElement(xml: string, localName: 'Assertion' | 'Response', signer: KeyPair): string {
  const sig = new SignedXml({
    privateKey: signer.key,
    publicCert: signer.cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  const element = `//*[local-name(.)='${localName}']`;
  sig.addReference({
    xpath: element,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, { prefix: 'ds', location: { reference: `${element}/*[local-name(.)='Issuer']`, action: 'after' } });
  return sig.getSignedXml();
}

export function responseXml(idp: TestIdp, o: AssertionOptions, assertion?: string): string {
  const signer = o.signer ?? idp;
  const sign = o.sign ?? 'assertion';
  let inner = assertion ?? assertionXml(idp, o);
  if (!assertion && (sign === 'assertion' || sign === 'both')) inner = signElement(inner, 'Assertion', signer);
  const destination = o.destination === null ? '' : ` Destination="${esc(o.destination ?? o.acsUrl)}"`;
  const inResponseTo = o.inResponseTo ? ` InResponseTo="${esc(o.inResponseTo)}"` : '';
  let xml =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${newId()}" Version="2.0" IssueInstant="${iso(new Date())}"${destination}${inResponseTo}>` +
    `<saml:Issuer>${esc(o.issuer ?? idp.entityId)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    inner +
    `</samlp:Response>`;
  if (sign === 'response' || sign === 'both') xml = signElement(xml, 'Response', signer);
  return xml;
}

/** The AuthnRequest a login redirect carries (HTTP-Redirect binding: deflated, base64, in SAMLRequest). */
export function readAuthnRequest(location: string): { xml: string; id: string; relayState: string; url: URL } {
  const url = new URL(location);
  const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  const id = /\sID="([^"]+)"/.exec(xml)?.[1] ?? '';
  return { xml, id, relayState: url.searchParams.get('RelayState') ?? '', url };
}

export const toBase64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');
