/** A job's credentials in summary_fields.credentials, loaded once per page (AWX's shape). */
import type { Queryable } from '../../db/database.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

export type JobCredentials = Map<number, AnyRow[]>;

export async function loadJobCredentials(db: Queryable, rows: readonly AnyRow[]): Promise<JobCredentials> {
  const credentials: JobCredentials = new Map();
  if (!rows.length) return credentials;
  const found = await db.query<AnyRow>(
    `SELECT j.unified_job_id AS job_id, c.id, c.name, c.description, t.kind, t.kind IN ('cloud', 'insights') AS cloud, c.credential_type_id
     FROM unified_job_credentials j JOIN credentials c ON c.id = j.credential_id JOIN credential_types t ON t.id = c.credential_type_id
     WHERE j.unified_job_id = ANY($1::integer[]) ORDER BY c.name, c.id`,
    [rows.map((r) => r.id)],
  );
  for (const { job_id, ...credential } of found) credentials.set(job_id, [...(credentials.get(job_id) ?? []), credential]);
  return credentials;
}

export function showJobCredentials(row: AnyRow, out: AnyRow, prepared: JobCredentials | undefined): void {
  (out.summary_fields as Record<string, unknown>).credentials = prepared?.get(row.id) ?? [];
}
