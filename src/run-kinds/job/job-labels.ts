/** A job's labels in summary_fields.labels, loaded once per page (as AWX shows them). */
import type { Queryable } from '../../db/database.ts';
import type { SerializedObject } from '../../api/resource.ts';
import type { UnifiedJobRow } from '../../db/tables.ts';

export type JobLabels = Map<number, { id: number; name: string }[]>;

export async function loadJobLabels(db: Queryable, rows: readonly Pick<UnifiedJobRow, 'id'>[]): Promise<JobLabels> {
  const labels: JobLabels = new Map();
  if (!rows.length) return labels;
  const found = await db.query<{ job_id: number; id: number; name: string }>(
    'SELECT l.job_id, b.id, b.name FROM job_labels l JOIN labels b ON b.id = l.label_id WHERE l.job_id = ANY($1::integer[]) ORDER BY b.name, b.id',
    [rows.map((r) => r.id)],
  );
  for (const { job_id, id, name } of found) labels.set(job_id, [...(labels.get(job_id) ?? []), { id, name }]);
  return labels;
}

export function showJobLabels(row: Pick<UnifiedJobRow, 'id'>, out: SerializedObject, prepared: unknown): void {
  const results = (prepared as JobLabels | undefined)?.get(row.id) ?? [];
  out.summary_fields.labels = { count: results.length, results };
}
