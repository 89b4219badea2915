import type { UnifiedJobRow } from '../db/tables.ts';
import type { Queryable } from '../db/database.ts';
import type { ResourceSet } from '../api/context.ts';
import { refreshInventoryComputedFields } from '../inventory/computed-fields.ts';

const COUNTS = ['changed', 'dark', 'failures', 'ignored', 'ok', 'processed', 'rescued', 'skipped'] as const;

/**
 * Writes a job's per-host results from playbook_on_stats (AWX's JobHostSummary), points each
 * host of the inventories at its last job, counts the hosts' automations (AWX's HostMetric) and
 * refreshes the inventories' computed fields. A job over several inventories (`inventoryIds`, the
 * primary first) names each host in one of them only; an enabled host is preferred to a disabled
 * one of the same name, then the earlier inventory.
 */
export async function recordHostSummaries(
  tx: Queryable, resources: ResourceSet, job: Pick<UnifiedJobRow, 'id' | 'inventory_id'>, stats: Record<string, Record<string, number>>,
  inventoryIds: readonly number[] = job.inventory_id ? [job.inventory_id] : [],
): Promise<void> {
  const hosts = new Set<string>();
  for (const kind of COUNTS) for (const host of Object.keys(stats[kind] ?? {})) hosts.add(host);
  if (!hosts.size) return;
  const rows = [...hosts].map((host) => {
    const row: Record<string, unknown> = { host_name: host };
    for (const kind of COUNTS) row[kind] = stats[kind]?.[host] ?? 0;
    row.failed = (row.failures as number) > 0 || (row.dark as number) > 0;
    return row;
  });
  await tx.query(
    `INSERT INTO job_host_summaries (job_id, host_id, host_name, changed, dark, failures, ignored, ok, processed, rescued, skipped, failed)
     SELECT $1, h.id, s.host_name, s.changed, s.dark, s.failures, s.ignored, s.ok, s.processed, s.rescued, s.skipped, s.failed
     FROM jsonb_to_recordset($3::jsonb) AS s(host_name text, changed integer, dark integer, failures integer, ignored integer, ok integer,
       processed integer, rescued integer, skipped integer, failed boolean)
     LEFT JOIN LATERAL (
       SELECT h.id FROM hosts h JOIN unnest($2::int[]) WITH ORDINALITY AS i(id, position) ON h.inventory_id = i.id
       WHERE h.name = s.host_name ORDER BY h.enabled DESC, i.position LIMIT 1
     ) h ON true
     ORDER BY s.host_name -- the same order as analytics_add_hosts (migration 0044) locks totals rows in
     ON CONFLICT (job_id, host_name) DO NOTHING`,
    [job.id, [...inventoryIds], JSON.stringify(rows)],
  );
  if (!inventoryIds.length) return;
  await recordHostMetrics(tx, [...hosts]);
  await tx.query(
    `UPDATE hosts SET last_job_id = $1, last_job_host_summary_id = s.id, has_active_failures = s.failed
     FROM job_host_summaries s WHERE s.job_id = $1 AND s.host_id = hosts.id`,
    [job.id],
  );
  for (const inventoryId of inventoryIds) await refreshInventoryComputedFields(tx, resources, inventoryId);
}

/**
 * AWX's JobEvent._update_host_metrics, in one statement: each host name, lowercased, is first
 * automated now or counted once more, and revived when it was (soft) deleted. Rows are taken in name
 * order so that jobs ending together lock them in the same order.
 */
async function recordHostMetrics(tx: Queryable, hostNames: string[]): Promise<void> {
  await tx.query(
    `INSERT INTO host_metrics AS m (hostname, first_automation, last_automation, automated_counter)
     SELECT DISTINCT left(lower(name), 512), now(), now(), 1 FROM unnest($1::text[]) AS name ORDER BY 1
     ON CONFLICT (hostname) DO UPDATE SET last_automation = EXCLUDED.last_automation, automated_counter = m.automated_counter + 1, deleted = false`,
    [hostNames],
  );
}
