/** A job's credentials in summary_fields.credentials, loaded once per page (AWX's shape). */
import type { Queryable } from '../../db/database.ts';
import type { SerializedObject } from '../../api/resource.ts';
import type { CredentialRow, CredentialTypeRow, UnifiedJobRow } from '../../db/tables.ts';

/** A credential as a job's summary shows it. */
type JobCredential = Pick<CredentialRow, 'id' | 'name' | 'description' | 'credential_type_id'> & Pick<CredentialTypeRow, 'kind'> & { cloud: boolean };

export type JobCredentials = Map<number, JobCredential[]>;

export async function loadJobCredentials(db: Queryable, rows: readonly Pick<UnifiedJobRow, 'id'>[]): Promise<JobCredentials> {
  const credentials: JobCredentials = new Map();
  if (!rows.length) return credentials;
  const found = await db.query<JobCredential & { job_id: number }>(
    `SELECT j.unified_job_id AS job_id, c.id, c.name, c.description, t.kind, t.kind IN ('cloud', 'insights') AS cloud, c.credential_type_id
     FROM unified_job_credentials j JOIN credentials c ON c.id = j.credential_id JOIN credential_types t ON t.id = c.credential_type_id
     WHERE j.unified_job_id = ANY($1::integer[]) ORDER BY c.name, c.id`,
    [rows.map((r) => r.id)],
  );
  for (const { job_id, ...credential } of found) credentials.set(job_id, [...(credentials.get(job_id) ?? []), credential]);
  return credentials;
}

export function showJobCredentials(row: Pick<UnifiedJobRow, 'id'>, out: SerializedObject, prepared: JobCredentials | undefined): void {
  out.summary_fields.credentials = prepared?.get(row.id) ?? [];
}
