/**
 * Reading the quota and branding a tenant's POST or PATCH gives (docs/tenants.md): every problem is
 * collected, by the field's dotted name (`quota.max_hosts`, `branding.custom_domain`), so one 400
 * names them all.
 */
import { email, FieldProblem } from '../../api/fields.ts';

/** One problem of a body, as the tenants' 400 lists them. */
export interface BodyProblem {
  field: string;
  message: string;
}

export const QUOTA_KINDS = ['max_concurrent_jobs', 'max_daily_launches', 'max_hosts', 'max_storage_mb'] as const;
export type QuotaKind = (typeof QUOTA_KINDS)[number];

export const BRANDING_FIELDS = ['logo_url', 'primary_color', 'secondary_color', 'custom_domain', 'contact_email'] as const;
export type BrandingField = (typeof BRANDING_FIELDS)[number];

const MAX_QUOTA = 2_147_483_647;
const MAX_URL_LENGTH = 2048;
const COLOR = /^#[0-9A-Fa-f]{6}$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A body part that must be an object when given (null leaves it as it is). */
function objectOrProblem(value: unknown, field: string, problems: BodyProblem[]): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  problems.push({ field, message: 'Expected an object.' });
  return null;
}

/** Unknown keys inside quota or branding are refused: a misspelt quota would otherwise leave the tenant unlimited. */
function unknownKeys(given: Record<string, unknown>, known: readonly string[], part: string, problems: BodyProblem[]): void {
  for (const key of Object.keys(given)) if (!known.includes(key)) problems.push({ field: `${part}.${key}`, message: `Unknown ${part} field; expected one of ${known.join(', ')}.` });
}

/** The quotas given: null (or 0) is unlimited, anything else a non-negative integer. */
export function readQuota(value: unknown, problems: BodyProblem[]): Partial<Record<QuotaKind, number | null>> {
  const given = objectOrProblem(value, 'quota', problems);
  if (!given) return {};
  unknownKeys(given, QUOTA_KINDS, 'quota', problems);
  const quota: Partial<Record<QuotaKind, number | null>> = {};
  for (const kind of QUOTA_KINDS) {
    if (!(kind in given)) continue;
    const v = given[kind];
    if (v === null) quota[kind] = null;
    else if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_QUOTA) quota[kind] = v;
    else problems.push({ field: `quota.${kind}`, message: `A whole number from 0 to ${MAX_QUOTA}, or null for no limit, is required.` });
  }
  return quota;
}

/**
 * A host name as stored and looked up: lowercase, without a trailing dot or a port. Null for
 * what is no host name (a URL, a path, spaces, a label over 63 characters).
 */
export function normalizeHost(given: string): string | null {
  let host = given.trim().toLowerCase();
  // A port, after the host (an IPv6 address in brackets is not a custom domain).
  host = host.replace(/:\d*$/, '');
  host = host.replace(/\.$/, '');
  if (!host || host.length > 253) return null;
  return host.split('.').every((label) => LABEL.test(label)) ? host : null;
}

function httpUrl(value: string): boolean {
  if (value.length > MAX_URL_LENGTH || /\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const contactEmail = email();

/** What each branding field takes ('' clears it); answers the stored value or throws FieldProblem. */
const BRANDING_READERS: Record<BrandingField, (value: string) => string> = {
  logo_url: (v) => {
    if (!httpUrl(v)) throw new FieldProblem(`Enter an http or https URL of at most ${MAX_URL_LENGTH} characters.`);
    return v;
  },
  primary_color: (v) => {
    if (!COLOR.test(v)) throw new FieldProblem('Enter a colour as #RRGGBB.');
    return v.toLowerCase();
  },
  secondary_color: (v) => BRANDING_READERS.primary_color(v),
  custom_domain: (v) => {
    // A port given by mistake is refused rather than dropped: the domain is what browsers show.
    const host = /:/.test(v) ? null : normalizeHost(v);
    if (!host) throw new FieldProblem('Enter a host name such as portal.example.com (letters, digits and hyphens, without scheme, port or path).');
    return host;
  },
  contact_email: (v) => contactEmail.parse(v) as string,
};

/** The branding given, normalised; null clears a field as '' does. */
export function readBranding(value: unknown, problems: BodyProblem[]): Partial<Record<BrandingField, string>> {
  const given = objectOrProblem(value, 'branding', problems);
  if (!given) return {};
  unknownKeys(given, BRANDING_FIELDS, 'branding', problems);
  const branding: Partial<Record<BrandingField, string>> = {};
  for (const field of BRANDING_FIELDS) {
    if (!(field in given)) continue;
    const v = given[field] ?? '';
    if (typeof v !== 'string') {
      problems.push({ field: `branding.${field}`, message: 'Not a valid string.' });
      continue;
    }
    if (v.trim() === '') {
      branding[field] = '';
      continue;
    }
    try {
      branding[field] = BRANDING_READERS[field](v.trim());
    } catch (err) {
      if (!(err instanceof FieldProblem)) throw err;
      problems.push({ field: `branding.${field}`, message: err.message });
    }
  }
  return branding;
}
