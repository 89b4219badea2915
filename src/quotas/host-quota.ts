/**
 * Hosts past a tenant's max_hosts (docs/tenants.md#quotas): creating a host in an inventory of a
 * tenant's organization or copying an inventory there is refused with 429 when the hosts added
 * would take the organization's inventories past max_hosts. The decision is kept as a quota event
 * either way.
 */
import { actorId, type RequestContext } from '../api/context.ts';
import { RecordedRefusal } from '../api/errors.ts';
import type { Queryable } from '../db/database.ts';
import { checkHosts, countHosts, isLimited, limitedTenantOf, lockUsage, QUOTA_STATUS, recordDecision, refusalBody } from './tenant-quota.ts';

export interface HostsAdded {
  /** How many hosts come (1 unless an inventory's are copied). */
  count?: number;
  /** What adds them, as the quota event names it. */
  action?: string;
}

/** Throws the refusal when the hosts added to the inventory would pass its tenant's max_hosts. */
export async function checkHostQuota(tx: Queryable, ctx: RequestContext, inventoryId: number, added: HostsAdded = {}): Promise<void> {
  const [inventory] = await tx.query<{ organization_id: number | null }>('SELECT organization_id FROM inventories WHERE id = $1', [inventoryId]);
  await checkOrganizationHostQuota(tx, ctx, inventory?.organization_id ?? null, added);
}

/** Throws the refusal when the hosts added to the organization's inventories would pass its tenant's max_hosts. */
export async function checkOrganizationHostQuota(tx: Queryable, ctx: RequestContext, organizationId: number | null, added: HostsAdded = {}): Promise<void> {
  const { count = 1, action = 'create host' } = added;
  if (count <= 0) return;
  const tenant = await limitedTenantOf(tx, organizationId);
  if (!tenant || !isLimited(tenant.max_hosts)) return;
  // Locked as launches lock it: two hosts added at once are counted one after the other.
  if (!(await lockUsage(tx, tenant.id))) return;
  const hosts = await countHosts(tx, tenant.organization_id);
  const check = checkHosts(tenant.max_hosts, hosts, count);
  const decision = { tenant, checks: [check], action, unifiedJobId: null, userId: actorId(ctx) };
  if (check.denied) throw new RecordedRefusal(QUOTA_STATUS, refusalBody([check]), (q) => recordDecision(q, decision));
  await tx.query('UPDATE tenant_usage SET hosts = $2 WHERE tenant_id = $1', [tenant.id, hosts + count]);
  await recordDecision(tx, decision);
}
