/** A job's extra inventories in summary_fields.inventories, in their order, loaded once per page (docs/job-templates.md, "Several inventories"). */
import type { Queryable } from '../../db/database.ts';
import type { SerializedObject } from '../../api/resource.ts';
import type { UnifiedJobRow } from '../../db/tables.ts';

interface InventorySummary {
  id: number;
  name: string;
  kind: string;
}

export type JobInventories = Map<number, InventorySummary[]>;

export async function loadJobInventories(db: Queryable, rows: readonly Pick<UnifiedJobRow, 'id'>[]): Promise<JobInventories> {
  const inventories: JobInventories = new Map();
  if (!rows.length) return inventories;
  const found = await db.query<InventorySummary & { job_id: number }>(
    `SELECT l.job_id, i.id, i.name, i.kind FROM job_inventories l JOIN inventories i ON i.id = l.inventory_id
     WHERE l.job_id = ANY($1::integer[]) ORDER BY l.position, i.id`,
    [rows.map((r) => r.id)],
  );
  for (const { job_id, ...inventory } of found) inventories.set(job_id, [...(inventories.get(job_id) ?? []), inventory]);
  return inventories;
}

export function showJobInventories(row: Pick<UnifiedJobRow, 'id'>, out: SerializedObject, prepared: unknown): void {
  out.summary_fields.inventories = (prepared as JobInventories | undefined)?.get(row.id) ?? [];
}
