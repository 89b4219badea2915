/**
 * What the quota checks share (docs/tenants.md#quotas): finding the tenant of an organization and
 * locking its usage row, judging one quota, the refusal's body and the events that record each decision.
 */
import type { Queryable } from '../db/database.ts';
import type { TenantRow, TenantUsageRow } from '../db/tables.ts';
import { ACTIVE_STATUSES } from '../runs/lifecycle.ts';

export type QuotaKind = 'max_concurrent_jobs' | 'max_daily_launches' | 'max_hosts' | 'max_storage_mb';

export const QUOTA_EXCEEDED = 'Tenant quota exceeded.';
export const QUOTA_STATUS = 429;

/** The run kinds whose active runs take one of max_concurrent_jobs. A workflow job only waits on its nodes, which take their own. */
export const SLOT_KINDS: readonly string[] = ['job', 'ad_hoc_command'];

/** Active runs, the statuses written out so the planner may use the partial index of active runs by organization (migration 0040). */
export const ACTIVE_IN = `status IN (${ACTIVE_STATUSES.map((status) => `'${status}'`).join(', ')})`;

export type Tenant = Pick<TenantRow, 'id' | 'organization_id' | QuotaKind>;
export type LockedUsage = Omit<TenantUsageRow, 'daily_date'> & { daily_date: string };

/** null and 0 are unlimited. */
export const isLimited = (limit: number | null): limit is number => limit !== null && limit > 0;

/** The tenant whose root is the organization, when one of its quotas is limited; null otherwise (nothing is locked then). */
export async function limitedTenantOf(tx: Queryable, organizationId: number | null): Promise<Tenant | null> {
  if (!organizationId) return null;
  const [tenant] = await tx.query<Tenant>(
    'SELECT id, organization_id, max_concurrent_jobs, max_daily_launches, max_hosts, max_storage_mb FROM tenants WHERE organization_id = $1',
    [organizationId],
  );
  if (!tenant) return null;
  const limited = isLimited(tenant.max_concurrent_jobs) || isLimited(tenant.max_daily_launches) || isLimited(tenant.max_hosts) || isLimited(tenant.max_storage_mb);
  return limited ? tenant : null;
}

/**
 * Locks the tenant's usage row until the transaction ends (made when missing), so decisions about one
 * tenant are taken one after another and each sees what the one before it committed; null when the
 * tenant is gone (deleted while the lock was awaited).
 */
export async function lockUsage(tx: Queryable, tenantId: number): Promise<LockedUsage | null> {
  const lock = () => tx.query<LockedUsage>(
    `SELECT tenant_id, concurrent_jobs, daily_launches, daily_date::text AS daily_date, hosts, storage_bytes, recalculated
     FROM tenant_usage WHERE tenant_id = $1 FOR UPDATE`,
    [tenantId],
  );
  const [usage] = await lock();
  if (usage) return usage;
  // Provisioning makes the row; one made otherwise gets it here. None: the tenant was deleted meanwhile.
  await tx.query('INSERT INTO tenant_usage (tenant_id) SELECT id FROM tenants WHERE id = $1 ON CONFLICT (tenant_id) DO NOTHING', [tenantId]);
  const [made] = await lock();
  return made ?? null;
}

/** The hosts of the organization's inventories (smart and constructed inventories hold none of their own). */
export async function countHosts(tx: Queryable, organizationId: number): Promise<number> {
  const [row] = await tx.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM hosts h JOIN inventories i ON i.id = h.inventory_id WHERE i.organization_id = $1',
    [organizationId],
  );
  return row.n;
}

/** One quota as checked: its limit, the usage it was measured against, and whether it refused. */
export interface QuotaCheck {
  kind: QuotaKind;
  limit: number;
  usage: number;
  denied: boolean;
  /** The sentence of the refusal's reasons, or what was found when it allowed. */
  message: string;
}

/** The body every quota refusal answers with: one reason per exceeded quota. */
export const refusalBody = (checks: readonly QuotaCheck[]) => ({
  detail: QUOTA_EXCEEDED,
  reasons: checks.filter((c) => c.denied).map((c) => c.message),
});

export interface QuotaDecision {
  tenant: Tenant;
  checks: readonly QuotaCheck[];
  /** What asked: "launch job (manual)", "create host". */
  action: string;
  unifiedJobId: number | null;
  userId: number | null;
}

/**
 * Stores one event per quota checked. Run in the transaction that goes on, or after a refusal's
 * rollback: a run that did not survive (refused by a later gate) is then left out of the event.
 */
export async function recordDecision(q: Queryable, decision: QuotaDecision): Promise<void> {
  const { tenant, checks } = decision;
  if (!checks.length) return;
  await q.query(
    `INSERT INTO tenant_quota_events (tenant_id, organization_id, quota_kind, decision, quota_limit, usage, action, unified_job_id, user_id, message)
     SELECT $1, $2, c.kind, c.decision, c.quota_limit, c.usage, $3, (SELECT id FROM unified_jobs WHERE id = $4), (SELECT id FROM users WHERE id = $5), c.message
     FROM unnest($6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::text[]) WITH ORDINALITY AS c(kind, decision, quota_limit, usage, message, n)
     WHERE EXISTS (SELECT 1 FROM tenants WHERE id = $1)
     ORDER BY c.n`,
    [
      tenant.id, tenant.organization_id, decision.action, decision.unifiedJobId, decision.userId,
      checks.map((c) => c.kind), checks.map((c) => (c.denied ? 'deny' : 'allow')), checks.map((c) => c.limit), checks.map((c) => c.usage), checks.map((c) => c.message),
    ],
  );
}

/** "1 host", "3 hosts": a count in a quota's message. */
export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The host check, at a launch (hosts already there: more than the limit refuses) or a host's creation (one more would pass it). */
export function checkHosts(limit: number, hosts: number, adding: number): QuotaCheck {
  const denied = adding > 0 ? hosts + adding > limit : hosts > limit;
  const held = plural(hosts, 'host', 'hosts');
  const message = !denied ? `${held} of ${limit}${adding > 0 ? `, ${adding} added` : ''}.`
    : adding === 0 ? `max_hosts is ${limit} and the organization's inventories hold ${held}.`
    : adding === 1 ? `max_hosts is ${limit} and the organization's inventories already hold ${held}.`
    : `max_hosts is ${limit}: the organization's inventories hold ${held} and these ${adding} would make ${hosts + adding}.`;
  return { kind: 'max_hosts', limit, usage: hosts, denied, message };
}

export const MEBIBYTE = 1024 * 1024;
