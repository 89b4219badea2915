/**
 * AWX's host metric tasks (awx/main/tasks/host_metrics.py): the cleanup that soft-deletes hosts not
 * automated for a while and erases those deleted long ago, and the monthly summary computed from
 * host_metrics. Both are run by the `host metrics` loop once a day and by `drover manage
 * cleanup_host_metrics` / `host_metric_summary_monthly` (docs/host-metrics.md).
 */
import type { Queryable } from '../../db/database.ts';

/** AWX's CLEANUP_HOST_METRICS_SOFT_THRESHOLD: months without automation before a host is soft-deleted. */
export const DEFAULT_SOFT_THRESHOLD = 12;
/** AWX's CLEANUP_HOST_METRICS_HARD_THRESHOLD: months after its deletion before a row is erased; also the months the summary covers. */
export const DEFAULT_HARD_THRESHOLD = 36;

export interface CleanupThresholds {
  soft: number;
  hard: number;
}

export interface CleanupOutcome {
  softDeleted: number;
  hardDeleted: number;
}

/** AWX's HostMetricTask.cleanup: the hard cleanup first, then the soft one, as AWX orders them. */
export async function cleanupHostMetrics(db: Queryable, thresholds: CleanupThresholds): Promise<CleanupOutcome> {
  const erased = await db.query(
    `DELETE FROM host_metrics WHERE deleted AND last_deleted < now() - make_interval(months => $1) RETURNING id`,
    [thresholds.hard],
  );
  const marked = await db.query(
    `UPDATE host_metrics SET deleted = true, deleted_counter = deleted_counter + 1, last_deleted = now()
     WHERE NOT deleted AND last_automation < now() - make_interval(months => $1) RETURNING id`,
    [thresholds.soft],
  );
  return { softDeleted: marked.length, hardDeleted: erased.length };
}

/**
 * AWX's HostMetricSummaryMonthlyTask in one statement: every month from the first the hard threshold
 * keeps up to this one (UTC) gets the hosts first automated in it, the hosts deleted in it (those
 * deleted now, by their last deletion) and the hosts consumed: those of the months before plus the
 * month's added less its deleted. Older months are never rewritten; license_capacity stays 0, the
 * capacity of AWX's open license; indirectly_managed_hosts is left as it is.
 */
export async function summarizeHostMetricsMonthly(db: Queryable, hardThreshold = DEFAULT_HARD_THRESHOLD): Promise<void> {
  await db.query(
    `WITH bounds AS (
       SELECT date_trunc('month', now() AT TIME ZONE 'UTC')::date AS this_month,
              (date_trunc('month', now() AT TIME ZONE 'UTC') - make_interval(months => $1 - 1))::date AS first_month
     ), changes AS (
       SELECT month, sum(added) AS added, sum(removed) AS removed FROM (
         SELECT date_trunc('month', first_automation AT TIME ZONE 'UTC')::date AS month, 1 AS added, 0 AS removed FROM host_metrics
         UNION ALL
         SELECT date_trunc('month', last_deleted AT TIME ZONE 'UTC')::date, 0, 1 FROM host_metrics WHERE deleted AND last_deleted IS NOT NULL
       ) AS each_change GROUP BY month
     ), consumed_before AS (
       SELECT coalesce(sum(added - removed), 0) AS consumed FROM changes, bounds WHERE month < first_month
     ), figures AS (
       SELECT m.month, coalesce(c.added, 0) AS added, coalesce(c.removed, 0) AS removed,
              (SELECT consumed FROM consumed_before) + sum(coalesce(c.added, 0) - coalesce(c.removed, 0)) OVER (ORDER BY m.month) AS consumed
       FROM (SELECT generate_series(first_month, this_month, interval '1 month')::date AS month FROM bounds) AS m
       LEFT JOIN changes c ON c.month = m.month
     )
     INSERT INTO host_metric_summary_monthly (date, license_consumed, hosts_added, hosts_deleted)
     SELECT month, consumed, added, removed FROM figures ORDER BY month
     ON CONFLICT (date) DO UPDATE SET license_consumed = EXCLUDED.license_consumed, hosts_added = EXCLUDED.hosts_added,
       hosts_deleted = EXCLUDED.hosts_deleted`,
    [hardThreshold],
  );
}
