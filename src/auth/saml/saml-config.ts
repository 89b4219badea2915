/**
 * The SAML service provider as the settings describe it, and node-saml set up for one of its
 * identity providers.
 */
import { generateServiceProviderMetadata, SAML, ValidateInResponseTo, type CacheProvider, type SamlConfig } from '@node-saml/node-saml';
import type { Settings } from '../../config/settings/store.ts';
import type { SsoMethod } from '../external/sso-methods.ts';
import type { SamlIdp, SamlSecurityConfig } from '../../config/settings/saml-shapes.ts';
import { REQUEST_LIFETIME_MS } from './saml-requests.ts';

export const SAML_METADATA_URL = '/sso/metadata/saml/';
export const SAML_LOGIN_URL = '/sso/login/saml/';
export const SAML_COMPLETE_URL = '/sso/complete/saml/';

const UNSPECIFIED_NAME_ID = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';
/** Clocks of the service and the identity provider may differ this much. */
const CLOCK_SKEW_MS = 60_000;

export interface ServiceProvider {
  entityId: string;
  acsUrl: string;
  cert: string;
  key: string;
  security: SamlSecurityConfig;
  idps: Record<string, SamlIdp>;
  settings: Settings;
}

/** SAML is not (fully) configured: the message names the settings that are missing. */
export class SamlNotConfigured extends Error {}

/** The service provider; throws SamlNotConfigured naming what is missing. */
export function serviceProvider(settings: Settings): ServiceProvider {
  const base = settings.get<string>('SVC_URL_BASE');
  const sp: ServiceProvider = {
    entityId: settings.get<string>('SOCIAL_AUTH_SAML_SP_ENTITY_ID'),
    acsUrl: settings.get<string>('SOCIAL_AUTH_SAML_CALLBACK_URL'),
    cert: settings.get<string>('SOCIAL_AUTH_SAML_SP_PUBLIC_CERT'),
    key: settings.get<string>('SOCIAL_AUTH_SAML_SP_PRIVATE_KEY'),
    security: settings.get<SamlSecurityConfig>('SOCIAL_AUTH_SAML_SECURITY_CONFIG') ?? {},
    idps: settings.get<Record<string, SamlIdp>>('SOCIAL_AUTH_SAML_ENABLED_IDPS') ?? {},
    settings,
  };
  const missing = [
    !base && 'SVC_URL_BASE',
    !sp.entityId && 'SOCIAL_AUTH_SAML_SP_ENTITY_ID',
    !sp.cert && 'SOCIAL_AUTH_SAML_SP_PUBLIC_CERT',
    !sp.key && 'SOCIAL_AUTH_SAML_SP_PRIVATE_KEY',
  ].filter(Boolean);
  if (missing.length) throw new SamlNotConfigured(`SAML is not configured: set ${missing.join(', ')}.`);
  return sp;
}

/** Whether SAML sign-in can be offered: the service provider is complete and has an IdP. */
export function samlEnabledIdps(settings: Settings): string[] {
  try {
    return Object.keys(serviceProvider(settings).idps);
  } catch (err) {
    if (err instanceof SamlNotConfigured) return [];
    throw err;
  }
}

/** The entries of GET /api/v2/auth/ for SAML: one per enabled identity provider, as AWX lists them. */
export const samlSsoMethod: SsoMethod = {
  entries: (services, baseUrl) =>
    Object.fromEntries(
      samlEnabledIdps(services.settings).map((idp) => [
        `saml:${idp}`,
        { login_url: `${SAML_LOGIN_URL}?idp=${encodeURIComponent(idp)}`, complete_url: `${baseUrl}${SAML_COMPLETE_URL}`, metadata_url: SAML_METADATA_URL, name: idp },
      ]),
    ),
};

const signing = (sp: ServiceProvider) => ({
  privateKey: sp.key,
  publicCert: sp.cert,
  signatureAlgorithm: sp.security.signatureAlgorithm ?? 'sha256',
  digestAlgorithm: sp.security.digestAlgorithm ?? 'sha256',
});

function authnContext(security: SamlSecurityConfig): Pick<SamlConfig, 'disableRequestedAuthnContext' | 'authnContext'> {
  const requested = security.requestedAuthnContext;
  if (Array.isArray(requested)) return { disableRequestedAuthnContext: false, authnContext: requested };
  return { disableRequestedAuthnContext: requested !== true };
}

/**
 * node-saml for one identity provider. A signature is always required, on the response or on the
 * assertion (SECURITY_CONFIG may require either or both); the answer must name a request this
 * service issued (InResponseTo, kept in `requests`); audience and validity times are checked.
 */
export function samlFor(sp: ServiceProvider, idpName: string, requests: CacheProvider): SAML {
  const idp = sp.idps[idpName];
  return new SAML({
    issuer: sp.entityId,
    audience: sp.entityId,
    callbackUrl: sp.acsUrl,
    entryPoint: idp.url,
    idpCert: idp.x509cert,
    idpIssuer: idp.entity_id,
    identifierFormat: UNSPECIFIED_NAME_ID,
    wantAuthnResponseSigned: sp.security.wantMessagesSigned === true,
    wantAssertionsSigned: sp.security.wantAssertionsSigned === true,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_LIFETIME_MS,
    cacheProvider: requests,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    decryptionPvk: sp.key,
    ...(sp.security.authnRequestsSigned ? signing(sp) : {}),
    ...authnContext(sp.security),
  });
}

type Contact = { givenName?: string; emailAddress?: string };

/** The service provider's metadata, signed when SECURITY_CONFIG.signMetadata says so (as AWX). */
export function metadataXml(sp: ServiceProvider): string {
  const orgInfo = sp.settings.get<Record<string, { name: string; displayname: string; url: string }>>('SOCIAL_AUTH_SAML_ORG_INFO') ?? {};
  const langs = Object.entries(orgInfo);
  const contacts = (
    [
      ['technical', sp.settings.get<Contact>('SOCIAL_AUTH_SAML_TECHNICAL_CONTACT')],
      ['support', sp.settings.get<Contact>('SOCIAL_AUTH_SAML_SUPPORT_CONTACT')],
    ] as const
  ).filter(([, c]) => c?.givenName && c.emailAddress);
  const signs = sp.security.signMetadata === true || sp.security.authnRequestsSigned === true;
  return generateServiceProviderMetadata({
    issuer: sp.entityId,
    callbackUrl: sp.acsUrl,
    identifierFormat: UNSPECIFIED_NAME_ID,
    wantAssertionsSigned: sp.security.wantAssertionsSigned === true,
    decryptionPvk: sp.key,
    decryptionCert: sp.cert,
    publicCerts: sp.cert,
    ...(signs ? signing(sp) : {}),
    signMetadata: sp.security.signMetadata === true,
    ...(langs.length && {
      metadataOrganization: {
        OrganizationName: langs.map(([lang, info]) => ({ '@xml:lang': lang, '#text': info.name })),
        OrganizationDisplayName: langs.map(([lang, info]) => ({ '@xml:lang': lang, '#text': info.displayname })),
        OrganizationURL: langs.map(([lang, info]) => ({ '@xml:lang': lang, '#text': info.url })),
      },
    }),
    ...(contacts.length && {
      metadataContactPerson: contacts.map(([type, c]) => ({ '@contactType': type, GivenName: c!.givenName, EmailAddress: [c!.emailAddress!] as [string] })),
    }),
  });
}
