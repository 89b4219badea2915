/**
 * Hosts past a tenant's max_hosts (docs/tenants.md#quotas): creating a host in an inventory of a
 * tenant's organization, or moving one there, is refused with 429 when the organization's
 * inventories already hold max_hosts hosts. The decision is kept as a quota event either way.
 */
import { actorId, type RequestContext } from '../api/context.ts';
import { RecordedRefusal } from '../api/errors.ts';
import type { Queryable } from '../db/database.ts';
import { checkHosts, countHosts, isLimited, limitedTenantOf, lockUsage, QUOTA_STATUS, recordDecision, refusalBody } from './tenant-quota.ts';

/**
 * Throws the refusal when one more host in the inventory would pass its tenant's max_hosts; `movedFrom`,
 * the inventory a host leaves: a move within one organization adds no host to it.
 */
export async function checkHostQuota(tx: Queryable, ctx: RequestContext, inventoryId: number, movedFrom: number | null = null): Promise<void> {
  const [inventory] = await tx.query<{ organization_id: number | null; same_organization: boolean }>(
    'SELECT organization_id, organization_id IS NOT DISTINCT FROM (SELECT organization_id FROM inventories WHERE id = $2) AS same_organization FROM inventories WHERE id = $1',
    [inventoryId, movedFrom],
  );
  if (movedFrom !== null && inventory?.same_organization) return;
  const tenant = await limitedTenantOf(tx, inventory?.organization_id ?? null);
  if (!tenant || !isLimited(tenant.max_hosts)) return;
  // Locked as launches lock it: two hosts added at once are counted one after the other.
  await lockUsage(tx, tenant.id);
  const hosts = await countHosts(tx, tenant.organization_id);
  const check = checkHosts(tenant.max_hosts, hosts, 1);
  const decision = { tenant, checks: [check], action: 'create host', unifiedJobId: null, userId: actorId(ctx) };
  if (check.denied) throw new RecordedRefusal(QUOTA_STATUS, refusalBody([check]), (q) => recordDecision(q, decision));
  await tx.query('UPDATE tenant_usage SET hosts = $2 WHERE tenant_id = $1', [tenant.id, hosts + 1]);
  await recordDecision(tx, decision);
}
