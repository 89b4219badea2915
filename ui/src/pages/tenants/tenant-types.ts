import { ApiError } from '../../api/errors';
import type { FieldOf } from '../../api/types';

/** The quotas, as the API's quota decisions name them. */
export type QuotaKind = FieldOf<'tenant_quota_events', 'quota_kind'>;

/** A tenant's quotas: null or 0 is unlimited. */
export type Quota = Record<QuotaKind, number | null>;

export interface Usage {
  concurrent_jobs: number;
  daily_launches: number;
  daily_date: string | null;
  hosts: number;
  storage_mb: number;
  storage_bytes: number;
  recalculated: string | null;
}

export interface Branding {
  logo_url: string;
  primary_color: string;
  secondary_color: string;
  custom_domain: string;
  contact_email: string;
}

export type BrandingField = keyof Branding;

/** Each quota, the usage it limits and how the console words it. */
export const QUOTAS: Record<QuotaKind, { label: string; usage: keyof Usage; unit: string; help: string }> = {
  max_concurrent_jobs: { label: 'Concurrent jobs', usage: 'concurrent_jobs', unit: 'runs', help: 'Runs of the tenant going on at once.' },
  max_daily_launches: { label: 'Launches per day', usage: 'daily_launches', unit: 'launches', help: 'Launches that started in the current UTC day.' },
  max_hosts: { label: 'Hosts', usage: 'hosts', unit: 'hosts', help: "Hosts in the tenant's inventories." },
  max_storage_mb: { label: 'Storage (MB)', usage: 'storage_mb', unit: 'MB', help: 'Project checkouts and stored run output.' },
};
export const QUOTA_KINDS = Object.keys(QUOTAS) as QuotaKind[];

export const BRANDING: Record<BrandingField, { label: string; help: string; type?: 'email' | 'url' }> = {
  logo_url: { label: 'Logo URL', help: 'An http or https address of an image for the masthead and the login page.', type: 'url' },
  primary_color: { label: 'Primary colour', help: '#RRGGBB: buttons, links and the active navigation.' },
  secondary_color: { label: 'Secondary colour', help: "#RRGGBB: the masthead's background." },
  custom_domain: { label: 'Custom domain', help: 'The host name whose console shows this branding (console.example.com).' },
  contact_email: { label: 'Contact email', help: "Where the tenant's users write for help.", type: 'email' },
};
export const BRANDING_FIELDS = Object.keys(BRANDING) as BrandingField[];

export const isUnlimited = (limit: number | null | undefined) => limit === null || limit === undefined || limit === 0;

export const isColor = (value: string) => /^#[0-9a-fA-F]{6}$/.test(value);

/**
 * The tenants' 400 `{errors: [{field, message}]}` by field (`name`, `quota.max_hosts`,
 * `branding.custom_domain`); messages of one field joined.
 */
export function tenantFieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError) || error.status !== 400 || !error.body || typeof error.body !== 'object') return {};
  const list = (error.body as { errors?: unknown }).errors;
  if (!Array.isArray(list)) return error.fieldErrors;
  const out: Record<string, string> = {};
  for (const item of list) {
    if (!item || typeof item !== 'object') continue;
    const { field, message } = item as { field?: unknown; message?: unknown };
    const key = typeof field === 'string' && field ? field : '__all__';
    out[key] = out[key] ? `${out[key]} ${String(message)}` : String(message);
  }
  return out;
}

interface Named {
  id: number;
  name?: string;
  username?: string;
  description?: string;
}

/**
 * A tenant as the API answers it (docs/tenants.md). The tenants' routes describe their answer only
 * as {id, type} in the OpenAPI document, so its fields are written here.
 */
export type Tenant = {
  id: number;
  type: string;
  url: string;
  related: Record<string, string>;
  summary_fields: { organization?: Named; admin_user?: Named; team?: Named; user_capabilities?: Record<string, boolean> };
  name: string;
  description: string;
  organization: number;
  admin_user: number | null;
  team: number | null;
  quota: Quota;
  usage: Usage;
  branding: Branding;
  created: string;
  modified: string;
};
