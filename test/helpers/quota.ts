// Tenants for tests of the quota gate: an organization made a tenant root by rows of tenants and
// tenant_usage (as provisioning leaves them), its quotas changed in place, and what the gate recorded.
import type { TestApp } from './app.ts';
import type { TenantQuotaEventRow, TenantUsageRow } from '../../src/db/tables.ts';

export interface Quota {
  max_concurrent_jobs?: number | null;
  max_daily_launches?: number | null;
  max_hosts?: number | null;
  max_storage_mb?: number | null;
}

const QUOTA_KINDS = ['max_concurrent_jobs', 'max_daily_launches', 'max_hosts', 'max_storage_mb'] as const;

/** Makes the organization a tenant root with these quotas (the others unlimited) and its usage row; answers the tenant's id. */
export async function makeTenant(t: TestApp, organization: number, quota: Quota = {}): Promise<number> {
  const [tenant] = await t.db.query<{ id: number }>(
    `INSERT INTO tenants (organization_id, max_concurrent_jobs, max_daily_launches, max_hosts, max_storage_mb) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [organization, ...QUOTA_KINDS.map((k) => quota[k] ?? null)],
  );
  await t.db.query('INSERT INTO tenant_usage (tenant_id) VALUES ($1)', [tenant.id]);
  return tenant.id;
}

/** Sets every quota of the tenant: those not given become unlimited (null). */
export async function setQuota(t: TestApp, tenant: number, quota: Quota): Promise<void> {
  await t.db.query(
    'UPDATE tenants SET max_concurrent_jobs = $2, max_daily_launches = $3, max_hosts = $4, max_storage_mb = $5 WHERE id = $1',
    [tenant, ...QUOTA_KINDS.map((k) => quota[k] ?? null)],
  );
}

export type Usage = Omit<TenantUsageRow, 'daily_date'> & { daily_date: string };

export async function usageOf(t: TestApp, tenant: number): Promise<Usage> {
  const [usage] = await t.db.query<Usage>(
    'SELECT tenant_id, concurrent_jobs, daily_launches, daily_date::text AS daily_date, hosts, storage_bytes::float8 AS storage_bytes, recalculated FROM tenant_usage WHERE tenant_id = $1',
    [tenant],
  );
  return usage;
}

/** The tenant's quota events after `afterId`, oldest first. */
export async function quotaEvents(t: TestApp, tenant: number, afterId = 0): Promise<TenantQuotaEventRow[]> {
  return t.db.query<TenantQuotaEventRow>(
    'SELECT id::int AS id, tenant_id, organization_id, quota_kind, decision, quota_limit::int AS quota_limit, usage::int AS usage, action, unified_job_id, user_id, message, created FROM tenant_quota_events WHERE tenant_id = $1 AND id > $2 ORDER BY id',
    [tenant, afterId],
  );
}

/** The id of the newest quota event (0 when none): what a test reads events after. */
export async function lastEventId(t: TestApp): Promise<number> {
  const [row] = await t.db.query<{ id: number }>('SELECT COALESCE(max(id), 0)::int AS id FROM tenant_quota_events');
  return row.id;
}

/** The refusal of a quota: 429 with the detail and one reason per exceeded quota. */
export function assertQuotaRefusal(res: { status: number; body: any; text: string }, reasons: RegExp[]): void {
  if (res.status !== 429) throw new Error(`expected 429, got ${res.status}: ${res.text}`);
  if (res.body?.detail !== 'Tenant quota exceeded.') throw new Error(`unexpected detail: ${res.text}`);
  const given: unknown = res.body.reasons;
  if (!Array.isArray(given) || given.length !== reasons.length || !reasons.every((r, i) => r.test(String(given[i])))) {
    throw new Error(`reasons ${JSON.stringify(given)} do not match ${reasons.map(String).join(', ')}`);
  }
}
