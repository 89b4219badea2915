import type { Queryable } from '../../db/database.ts';
import { managedCredentialTypes } from './managed-types.ts';

/**
 * Keeps the managed credential types in the database as the code defines them: adds missing ones,
 * brings changed ones up to date, and (as AWX) adopts a custom type of the same name and kind.
 * Idempotent; runs at every start inside the bootstrap transaction.
 */
export async function ensureManagedCredentialTypes(tx: Queryable): Promise<void> {
  for (const type of managedCredentialTypes()) {
    const values = [type.namespace, type.kind, type.name, type.description ?? '', JSON.stringify(type.inputs), JSON.stringify(type.injectors ?? {})];
    const updated = await tx.query(
      `UPDATE credential_types SET namespace = $1, kind = $2, name = $3, description = $4, inputs = $5::jsonb, injectors = $6::jsonb, managed = true,
         modified = CASE WHEN inputs = $5::jsonb AND injectors = $6::jsonb AND name = $3 AND kind = $2 THEN modified ELSE now() END
       WHERE id = (SELECT id FROM credential_types WHERE namespace = $1 OR (namespace IS NULL AND name = $3 AND kind = $2)
                   ORDER BY namespace NULLS LAST LIMIT 1)
       RETURNING id`,
      values,
    );
    if (updated.length) continue;
    await tx.query(
      `INSERT INTO credential_types (namespace, kind, name, description, inputs, injectors, managed) VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, true)`,
      values,
    );
  }
}
