/**
 * The tenant quota gate (docs/tenants.md#quotas), first of the launch gates: a job, ad hoc command
 * or workflow job launched in a tenant's organization with a limited quota is measured against each
 * limited quota while the tenant's usage row is locked, and refused with 429 when one is exceeded.
 * Project and inventory updates, system jobs and approvals are not limited.
 */
import { actorId } from '../api/context.ts';
import type { Queryable } from '../db/database.ts';
import type { Gate, GateInput, Verdict } from '../runs/gates.ts';
import {
  ACTIVE_IN, checkHosts, countHosts, plural, isLimited, limitedTenantOf, lockUsage, MEBIBYTE, QUOTA_EXCEEDED, QUOTA_STATUS,
  recordDecision, refusalBody, SLOT_KINDS, type QuotaCheck,
} from './tenant-quota.ts';

/** The run kinds a tenant's quotas limit; a launch of another kind passes without a look. */
const LIMITED_KINDS: readonly string[] = [...SLOT_KINDS, 'workflow_job'];

export interface QuotaGateOptions {
  /** The time the day's launches are counted by (its UTC date); tests move it across midnight. */
  now?: () => Date;
}

/**
 * The organization's active runs that hold a slot, besides this one, counted up to `limit`: no
 * more are needed to refuse, so a decision reads at most `limit` index entries.
 */
async function countActiveSlots(tx: Queryable, organizationId: number, runId: number, limit: number): Promise<number> {
  const [row] = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (
       SELECT 1 FROM unified_jobs WHERE organization_id = $1 AND kind = ANY($2) AND ${ACTIVE_IN} AND id <> $3 LIMIT $4) AS held`,
    [organizationId, SLOT_KINDS, runId, limit],
  );
  return row.n;
}

export function createQuotaGate(options: QuotaGateOptions = {}): Gate {
  const now = options.now ?? (() => new Date());

  async function check(tx: Queryable, launch: GateInput): Promise<Verdict> {
    const { run, kind } = launch;
    if (!LIMITED_KINDS.includes(kind)) return { decision: 'allow' };
    const tenant = await limitedTenantOf(tx, run.organization_id);
    if (!tenant) return { decision: 'allow' };
    const usage = await lockUsage(tx, tenant.id);
    if (!usage) return { decision: 'allow' };
    const today = now().toISOString().slice(0, 10);
    const launchesToday = usage.daily_date === today ? usage.daily_launches : 0;
    // A workflow's nodes belong to the workflow's launch: they count once, as the workflow.
    const countsAsLaunch = run.launch_type !== 'workflow';
    const holdsSlot = SLOT_KINDS.includes(kind);

    const checks: QuotaCheck[] = [];
    let active: number | null = null;
    if (holdsSlot && isLimited(tenant.max_concurrent_jobs)) {
      const limit = tenant.max_concurrent_jobs;
      active = await countActiveSlots(tx, tenant.organization_id, run.id, limit);
      const denied = active >= limit;
      checks.push({
        kind: 'max_concurrent_jobs', limit, usage: active, denied,
        message: denied
          ? `max_concurrent_jobs is ${limit} and the organization already has ${plural(active, 'active job', 'active jobs')}.`
          : `${plural(active, 'active job', 'active jobs')} of ${limit} before this one.`,
      });
    }
    if (countsAsLaunch && isLimited(tenant.max_daily_launches)) {
      const limit = tenant.max_daily_launches;
      const denied = launchesToday >= limit;
      checks.push({
        kind: 'max_daily_launches', limit, usage: launchesToday, denied,
        message: denied
          ? `max_daily_launches is ${limit} and the organization has launched ${plural(launchesToday, 'run', 'runs')} today (UTC ${today}).`
          : `${plural(launchesToday, 'launch', 'launches')} of ${limit} today (UTC ${today}) before this one.`,
      });
    }
    let hosts: number | null = null;
    if (isLimited(tenant.max_hosts)) {
      hosts = await countHosts(tx, tenant.organization_id);
      checks.push(checkHosts(tenant.max_hosts, hosts, 0));
    }
    if (isLimited(tenant.max_storage_mb)) {
      const limit = tenant.max_storage_mb;
      const bytes = Number(usage.storage_bytes);
      const mb = Math.floor(bytes / MEBIBYTE);
      const denied = bytes >= limit * MEBIBYTE;
      checks.push({
        kind: 'max_storage_mb', limit, usage: mb, denied,
        message: denied
          ? `max_storage_mb is ${limit} and the organization's projects and run output take ${mb} MB.`
          : `${mb} MB of ${limit} MB stored.`,
      });
    }

    const decision = {
      tenant, checks, action: `launch ${kind} (${launch.trigger.type})`, unifiedJobId: run.id, userId: actorId(launch.ctx),
    };
    const record = (q: Queryable) => recordDecision(q, decision);
    if (checks.some((c) => c.denied)) {
      const body = refusalBody(checks);
      return { decision: 'deny', status: QUOTA_STATUS, message: QUOTA_EXCEEDED, body, record };
    }
    // Taken only by a launch that starts: a later gate's refusal rolls this back with the launch.
    await tx.query(
      `UPDATE tenant_usage SET daily_date = $2::date, daily_launches = $3,
         concurrent_jobs = COALESCE($4::int, concurrent_jobs), hosts = COALESCE($5::int, hosts)
       WHERE tenant_id = $1`,
      [tenant.id, today, launchesToday + (countsAsLaunch ? 1 : 0), active === null ? null : active + 1, hosts],
    );
    return { decision: 'allow', record };
  }

  return { name: 'tenant quota', check };
}

export const quotaGate: Gate = createQuotaGate();
