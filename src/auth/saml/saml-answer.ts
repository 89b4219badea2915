/**
 * Checks node-saml leaves to the service provider, made on the verified assertion: who issued
 * it, where it was meant to go (Recipient, Destination), and what identifies it for replay.
 */
import type { Profile } from '@node-saml/node-saml';
import { parseXml2JsFromString } from '@node-saml/node-saml/lib/xml.js';
import { REQUEST_LIFETIME_MS } from './saml-requests.ts';

/** A refused answer; the message is meant for the user (never the peer's own text). */
export class SamlRefused extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export interface SamlAnswer {
  nameId: string;
  attributes: Record<string, string[]>;
  assertionId: string;
  /** When the assertion stops being valid: its record for replay is kept until then. */
  expires: Date;
}

type Node = Record<string, any>;

const first = (node: Node | undefined, key: string): Node | undefined => (Array.isArray(node?.[key]) ? node[key][0] : undefined);

function values(value: unknown): string[] {
  const items = Array.isArray(value) ? value : [value];
  return items.filter((v): v is string | number => typeof v === 'string' || typeof v === 'number').map(String);
}

function earliest(...times: (string | undefined)[]): Date {
  const parsed = times.map((t) => (t ? Date.parse(t) : NaN)).filter((t) => Number.isFinite(t));
  return new Date(parsed.length ? Math.min(...parsed) : Date.now() + REQUEST_LIFETIME_MS);
}

/** The answer of a profile node-saml validated, once it is checked against this IdP and ACS. */
export async function checkAnswer(profile: Profile, idpEntityId: string, acsUrl: string): Promise<SamlAnswer> {
  if (profile.issuer !== idpEntityId) throw new SamlRefused('wrong_issuer', 'The SAML assertion was not issued by the identity provider the sign-in started with.');
  const assertion = (profile.getAssertion?.() as Node | undefined)?.Assertion as Node | undefined;
  const assertionId = assertion?.$?.ID;
  if (typeof assertionId !== 'string' || assertionId === '') throw new SamlRefused('no_assertion_id', 'The SAML assertion has no ID.');

  const confirmations: Node[] = first(assertion, 'Subject')?.SubjectConfirmation ?? [];
  const data = confirmations.map((c) => first(c, 'SubjectConfirmationData')?.$ as Node | undefined);
  if (!data.some((d) => d?.Recipient === acsUrl)) {
    throw new SamlRefused('wrong_recipient', 'The SAML assertion was meant for another service (its Recipient is not this service).');
  }
  const response = (await parseXml2JsFromString(profile.getSamlResponseXml?.() ?? '')) as Node;
  const destination = response.Response?.$?.Destination;
  if (destination !== undefined && destination !== acsUrl) {
    throw new SamlRefused('wrong_destination', 'The SAML response was meant for another service (its Destination is not this service).');
  }

  const attributes: Record<string, string[]> = {};
  for (const [name, value] of Object.entries((profile.attributes ?? {}) as Record<string, unknown>)) attributes[name] = values(value);
  const conditions = first(assertion, 'Conditions')?.$ as Node | undefined;
  return {
    nameId: profile.nameID,
    attributes,
    assertionId,
    expires: earliest(conditions?.NotOnOrAfter, ...data.map((d) => d?.NotOnOrAfter)),
  };
}
