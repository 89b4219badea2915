/**
 * The shapes of the SAML settings (AWX's SOCIAL_AUTH_SAML_*): each value is checked key by key on
 * write, so what is stored is what the sign-in code can apply, and a mistake is answered with the
 * key it concerns.
 */
import { FieldProblem, type FieldOptions } from '../../api/fields.ts';
import { certificatePem } from './pem.ts';
import { shaped } from './shapes.ts';

export interface SamlIdp {
  entity_id: string;
  url: string;
  x509cert: string;
  attr_user_permanent_id?: string;
  attr_username?: string;
  attr_email?: string;
  attr_first_name?: string;
  attr_last_name?: string;
}

export interface SamlOrganizationAttr {
  saml_attr?: string;
  saml_admin_attr?: string;
  saml_auditor_attr?: string;
  remove?: boolean;
  remove_admins?: boolean;
  remove_auditors?: boolean;
}

export interface SamlTeamAttr {
  saml_attr?: string;
  remove?: boolean;
  team_org_map?: { team: string; team_alias?: string; organization: string }[];
}

export type FlagValue = string | string[];

export interface SamlUserFlags {
  is_superuser_attr?: string;
  is_superuser_value?: FlagValue;
  is_superuser_role?: FlagValue;
  remove_superusers?: boolean;
  is_system_auditor_attr?: string;
  is_system_auditor_value?: FlagValue;
  is_system_auditor_role?: FlagValue;
  remove_system_auditors?: boolean;
}

const MAX_TEXT = 1024;
const MAX_ITEMS = 1000;
/** IdP names travel in URLs (?idp=) and in RelayState. */
export const IDP_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const HTTP_URL = /^https?:\/\/[^\s/?#]+(\/[^\s]*)?$/i;

type Check = (where: string, value: unknown) => unknown;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const str: Check = (where, value) => {
  if (typeof value !== 'string') throw new FieldProblem(`${where}: not a valid string.`);
  if (value.length > MAX_TEXT) throw new FieldProblem(`${where}: at most ${MAX_TEXT} characters.`);
  return value;
};
const nonBlank: Check = (where, value) => {
  const s = str(where, value) as string;
  if (s.trim() === '') throw new FieldProblem(`${where}: may not be blank.`);
  return s.trim();
};
const bool: Check = (where, value) => {
  if (typeof value !== 'boolean') throw new FieldProblem(`${where}: must be true or false.`);
  return value;
};
const url: Check = (where, value) => {
  const s = nonBlank(where, value) as string;
  if (!HTTP_URL.test(s)) throw new FieldProblem(`${where}: enter a valid URL starting with http:// or https://.`);
  return s;
};
const email: Check = (where, value) => {
  const s = nonBlank(where, value) as string;
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s)) throw new FieldProblem(`${where}: enter a valid email address.`);
  return s;
};
const cert: Check = (where, value) => {
  if (typeof value !== 'string' || value.trim() === '') throw new FieldProblem(`${where}: expected a PEM-encoded certificate.`);
  try {
    return certificatePem(value);
  } catch (err) {
    throw new FieldProblem(`${where}: ${(err as Error).message}`);
  }
};
/** A string or a list of strings (AWX also accepts both). */
const strings: Check = (where, value) => {
  const items = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(items) || items.length > MAX_ITEMS) throw new FieldProblem(`${where}: expected a string or a list of strings.`);
  return items.map((item, i) => nonBlank(`${where}[${i}]`, item));
};

/** Checks the keys of one dictionary: required ones present, none unknown. */
function dict(where: string, value: unknown, keys: Record<string, Check>, required: readonly string[] = []): Record<string, unknown> {
  if (!isObject(value)) throw new FieldProblem(`${where ? where + ': ' : ''}expected a dictionary.`);
  const unknown = Object.keys(value).filter((k) => !(k in keys));
  const prefix = where ? `${where}.` : '';
  if (unknown.length) throw new FieldProblem(`${where ? where + ': ' : ''}invalid key(s) ${unknown.join(', ')}. Allowed: ${Object.keys(keys).join(', ')}.`);
  const missing = required.filter((k) => !(k in value));
  if (missing.length) throw new FieldProblem(`${where ? where + ': ' : ''}missing required key(s) ${missing.join(', ')}.`);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, keys[k](prefix + k, v)]));
}

const IDP_KEYS: Record<string, Check> = {
  entity_id: nonBlank,
  url,
  x509cert: cert,
  attr_user_permanent_id: nonBlank,
  attr_username: nonBlank,
  attr_email: nonBlank,
  attr_first_name: nonBlank,
  attr_last_name: nonBlank,
};

/** {name: {entity_id, url, x509cert, attr_*}}: the identity providers users may sign in with. */
export const enabledIdps = (opts: FieldOptions) =>
  shaped({ default: {}, ...opts }, (value) => {
    if (!isObject(value)) throw new FieldProblem('Expected a dictionary of identity providers.');
    if (Object.keys(value).length > 100) throw new FieldProblem('At most 100 identity providers.');
    return Object.fromEntries(
      Object.entries(value).map(([name, idp]) => {
        if (!IDP_NAME.test(name)) throw new FieldProblem(`"${name.slice(0, 70)}": an identity provider name is 1 to 64 letters, digits, "_", "." or "-".`);
        return [name, dict(name, idp, IDP_KEYS, ['entity_id', 'url', 'x509cert'])];
      }),
    );
  });

/** {"en-US": {name, displayname, url}}. */
export const orgInfo = (opts: FieldOptions) =>
  shaped({ default: {}, ...opts }, (value) => {
    if (!isObject(value)) throw new FieldProblem('Expected a dictionary of languages.');
    return Object.fromEntries(
      Object.entries(value).map(([lang, info]) => {
        if (!/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(lang)) throw new FieldProblem(`"${lang.slice(0, 20)}" is not a language code (en-US).`);
        return [lang, dict(lang, info, { name: nonBlank, displayname: nonBlank, url }, ['name', 'displayname', 'url'])];
      }),
    );
  });

/** {givenName, emailAddress}. */
export const contact = (opts: FieldOptions) =>
  shaped({ default: {}, ...opts }, (value) =>
    isObject(value) && Object.keys(value).length === 0 ? {} : dict('', value, { givenName: nonBlank, emailAddress: email }, ['givenName', 'emailAddress']),
  );

const SECURITY_KEYS: Record<string, Check> = {
  authnRequestsSigned: bool,
  signMetadata: bool,
  wantMessagesSigned: bool,
  wantAssertionsSigned: bool,
  requestedAuthnContext: (where, value) => (typeof value === 'boolean' ? value : strings(where, value)),
  signatureAlgorithm: (where, value) => choice(where, value, ['sha256', 'sha512', 'sha1'], ALGORITHM_URIS),
  digestAlgorithm: (where, value) => choice(where, value, ['sha256', 'sha512', 'sha1'], DIGEST_URIS),
};

// python3-saml (AWX) names algorithms by URI; node-saml by short name. Both are accepted.
const ALGORITHM_URIS: Record<string, string> = {
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256': 'sha256',
  'http://www.w3.org/2001/04/xmldsig-more#rsa-sha512': 'sha512',
  'http://www.w3.org/2000/09/xmldsig#rsa-sha1': 'sha1',
};
const DIGEST_URIS: Record<string, string> = {
  'http://www.w3.org/2001/04/xmlenc#sha256': 'sha256',
  'http://www.w3.org/2001/04/xmlenc#sha512': 'sha512',
  'http://www.w3.org/2000/09/xmldsig#sha1': 'sha1',
};

function choice(where: string, value: unknown, names: string[], uris: Record<string, string>): string {
  if (typeof value === 'string' && names.includes(value)) return value;
  if (typeof value === 'string' && value in uris) return uris[value];
  throw new FieldProblem(`${where}: one of ${names.join(', ')} (or its XML signature URI).`);
}

export type SamlSecurityConfig = {
  authnRequestsSigned?: boolean;
  signMetadata?: boolean;
  wantMessagesSigned?: boolean;
  wantAssertionsSigned?: boolean;
  requestedAuthnContext?: boolean | string[];
  signatureAlgorithm?: 'sha256' | 'sha512' | 'sha1';
  digestAlgorithm?: 'sha256' | 'sha512' | 'sha1';
};

export const securityConfig = (opts: FieldOptions) => shaped(opts, (value) => dict('', value, SECURITY_KEYS));

/** SP_EXTRA: free-form additions to the service provider's description, kept as given. */
export const spExtra = (opts: FieldOptions) =>
  shaped({ nullable: true, default: null, ...opts }, (value) => {
    if (!isObject(value)) throw new FieldProblem('Expected a dictionary.');
    if (JSON.stringify(value).length > 64 * 1024) throw new FieldProblem('At most 64 KiB.');
    return value;
  });

/** EXTRA_DATA: [[attribute, name], ...] (or attribute names). */
export const extraData = (opts: FieldOptions) =>
  shaped({ nullable: true, default: null, ...opts }, (value) => {
    if (!Array.isArray(value) || value.length > MAX_ITEMS) throw new FieldProblem('Expected a list of attribute names or [attribute, name] pairs.');
    return value.map((item, i) => {
      if (typeof item === 'string') return nonBlank(`Item ${i + 1}`, item);
      if (Array.isArray(item) && item.length === 2) return item.map((part) => nonBlank(`Item ${i + 1}`, part));
      throw new FieldProblem(`Item ${i + 1}: expected an attribute name or an [attribute, name] pair.`);
    });
  });

export const organizationAttr = (opts: FieldOptions) =>
  shaped({ default: {}, ...opts }, (value) =>
    dict('', value, {
      saml_attr: nonBlank,
      saml_admin_attr: nonBlank,
      saml_auditor_attr: nonBlank,
      remove: bool,
      remove_admins: bool,
      remove_auditors: bool,
    }),
  );

const teamOrgMap: Check = (where, value) => {
  if (!Array.isArray(value) || value.length > MAX_ITEMS) throw new FieldProblem(`${where}: expected a list of {team, organization}.`);
  return value.map((item, i) => dict(`${where}[${i}]`, item, { team: nonBlank, team_alias: nonBlank, organization: nonBlank }, ['team', 'organization']));
};

export const teamAttr = (opts: FieldOptions) =>
  shaped({ default: {}, ...opts }, (value) => dict('', value, { saml_attr: nonBlank, remove: bool, team_org_map: teamOrgMap }));

export const userFlagsByAttr = (opts: FieldOptions) =>
  shaped({ default: {}, ...opts }, (value) =>
    dict('', value, {
      is_superuser_attr: nonBlank,
      is_superuser_value: strings,
      is_superuser_role: strings,
      remove_superusers: bool,
      is_system_auditor_attr: nonBlank,
      is_system_auditor_value: strings,
      is_system_auditor_role: strings,
      remove_system_auditors: bool,
    }),
  );
