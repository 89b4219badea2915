/** What other resources call to attach credentials to things and to use them in runs. */
import { hasObjectRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { forbidden, notFound, ValidationError } from '../../api/errors.ts';
import type { Queryable } from '../../db/database.ts';
import type { CredentialRow } from '../../db/tables.ts';
import { clearInputs, type CredentialTypeRow, type Inputs } from './credential-inputs.ts';
import { fieldsOf } from '../credential-types/type-schema.ts';
import { lookedUpInputs, STRICT_LOOKUPS, type LookupContext } from './dynamic-inputs.ts';

export async function loadCredentialType(db: Queryable, typeId: number): Promise<CredentialTypeRow> {
  const [type] = await db.query<CredentialTypeRow>('SELECT id, name, kind, namespace, managed, inputs, injectors FROM credential_types WHERE id = $1', [typeId]);
  if (!type) throw notFound();
  return type;
}

const kindMessage = (kinds: readonly string[]) =>
  kinds.length === 1 ? `Credential kind must be '${kinds[0]}'.` : `Credential kind must be one of ${kinds.map((k) => `'${k}'`).join(', ')}.`;

/**
 * Refuses to attach credential `credentialId` (given in the body's `field`) unless the caller
 * holds its use_role (403; superusers hold every role), and unless its type is of one of `kinds`
 * (400 on `field`). A credential that does not exist is a 400 on `field` too.
 */
export async function assertCanUseCredential(
  ctx: RequestContext,
  tx: Queryable,
  credentialId: number,
  field: string,
  kinds?: string[],
): Promise<void> {
  const [row] = await tx.query<{ kind: string }>(
    'SELECT credential_types.kind FROM credentials JOIN credential_types ON credential_types.id = credentials.credential_type_id WHERE credentials.id = $1',
    [credentialId],
  );
  if (!row) throw ValidationError.field(field, `Invalid pk "${credentialId}" - object does not exist.`);
  if (!(await hasObjectRole(ctx, tx, 'credential', credentialId, 'use_role'))) throw forbidden('You do not have permission to use this credential.');
  if (kinds && !kinds.includes(row.kind)) throw ValidationError.field(field, kindMessage(kinds));
}

/**
 * A credential's type and its inputs in clear (the type's defaults filled in, the inputs its input
 * sources provide looked up now). SecretDecryptionError when SVC_SECRET_KEY changed, LookupFailed
 * when a lookup fails.
 */
export async function decryptedInputs(
  db: Queryable, credentialId: number, lookups: LookupContext = STRICT_LOOKUPS,
): Promise<{ kind: string; namespace: string | null; inputs: Record<string, unknown> }> {
  const { name, type, stored } = await loadCredential(db, credentialId);
  return { kind: type.kind, namespace: type.namespace, inputs: { ...clearInputs(type, stored), ...(await lookedUpInputs(db, credentialId, name, lookups)) } };
}

/** A credential's type and stored inputs; 404 when it does not exist. */
export async function loadCredential(db: Queryable, credentialId: number): Promise<{ id: number; name: string; type: CredentialTypeRow; stored: Inputs }> {
  const [row] = await db.query<Pick<CredentialRow, 'id' | 'name' | 'credential_type_id'> & { inputs: Inputs | null }>('SELECT id, name, credential_type_id, inputs FROM credentials WHERE id = $1', [credentialId]);
  if (!row) throw notFound(`Credential ${credentialId} does not exist.`);
  return { id: row.id, name: row.name, type: await loadCredentialType(db, row.credential_type_id), stored: row.inputs ?? {} };
}


/** An input a credential holds: given and not empty (AWX's Credential.has_input). */
const hasInput = (inputs: Inputs, id: string) => inputs[id] !== undefined && inputs[id] !== null && inputs[id] !== '';

/**
 * Why a run (`runLabel`: "Job", "Project Update"...) cannot start with these credentials, or null:
 * the first credential missing a required input of its type. As AWX's UnifiedJob.pre_start, the
 * inputs a type requires are checked when a credential is used, so one can be saved unfinished.
 */
export async function missingInputsProblem(db: Queryable, credentialIds: readonly number[], runLabel: string): Promise<string | null> {
  if (!credentialIds.length) return null;
  // An input an input source provides counts as given (AWX's has_input).
  const rows = await db.query<{ name: string; inputs: Inputs | null; type_inputs: CredentialTypeRow['inputs']; linked: string[] }>(
    `SELECT c.name, c.inputs, t.inputs AS type_inputs,
            ARRAY(SELECT input_field_name FROM credential_input_sources s WHERE s.target_credential_id = c.id) AS linked
       FROM credentials c JOIN credential_types t ON t.id = c.credential_type_id
     WHERE c.id = ANY($1::integer[]) ORDER BY array_position($1::integer[], c.id)`,
    [[...credentialIds]],
  );
  for (const row of rows) {
    const defined = new Set(fieldsOf(row.type_inputs).map((f) => f.id));
    const missing = (row.type_inputs.required ?? []).filter((id) => defined.has(id) && !hasInput(row.inputs ?? {}, id) && !row.linked.includes(id));
    if (missing.length) return `${runLabel} cannot start because Credential ${row.name} does not provide one or more required fields (${missing.sort().join(', ')}).`;
  }
  return null;
}
