/**
 * A tenant's concurrent_jobs follows its runs' ends (docs/tenants.md#quotas): in the transaction
 * storing a job's or ad hoc command's final status, the count is taken again. The quota gate counts
 * the runs table at each decision, so this is what tenant_usage shows, not what decides; a usage row
 * a launch holds locked is skipped (the launch writes the count itself) rather than waited for.
 */
import type { RunFollower } from '../runs/run-kind.ts';
import { ACTIVE_IN, SLOT_KINDS } from './tenant-quota.ts';

export const tenantUsageFollower: RunFollower = {
  name: 'tenant usage',
  async finished(tx, run) {
    if (!run.organization_id || !SLOT_KINDS.includes(run.kind)) return;
    await tx.query(
      `UPDATE tenant_usage u SET concurrent_jobs = (
         SELECT count(*) FROM unified_jobs WHERE organization_id = $1 AND kind = ANY($2) AND ${ACTIVE_IN})
       WHERE u.tenant_id = (
         SELECT usage.tenant_id FROM tenant_usage usage JOIN tenants t ON t.id = usage.tenant_id
         WHERE t.organization_id = $1 FOR UPDATE OF usage SKIP LOCKED)`,
      [run.organization_id, SLOT_KINDS],
    );
  },
};
