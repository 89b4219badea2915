/**
 * What AWX checks of an input source before it is saved (CredentialInputSource.clean_* and
 * DynamicCredentialInputField): the target is no external credential, the source is one, the input
 * is one of the target's type, and the metadata is what the source's type declares.
 */
import { ValidationError, type FieldErrors } from '../../api/errors.ts';
import type { Values } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { CredentialInputSourceRow } from '../../db/tables.ts';
import { fieldsOf, type TypeInputs } from '../credential-types/type-schema.ts';

interface CredentialTypeOf {
  kind: string;
  name: string;
  inputs: TypeInputs;
}

async function typeOf(tx: Queryable, credentialId: number): Promise<CredentialTypeOf | undefined> {
  const [row] = await tx.query<CredentialTypeOf>(
    'SELECT t.kind, t.name, t.inputs FROM credentials c JOIN credential_types t ON t.id = c.credential_type_id WHERE c.id = $1',
    [credentialId],
  );
  return row;
}

const pyRepr = (value: unknown) => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value));

/** The metadata against the source type's `metadata` fields: known keys, strings, choices, required ones given. */
export function metadataProblems(type: CredentialTypeOf, metadata: unknown): FieldErrors | string | null {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return `${pyRepr(metadata)} is not of type 'object'`;
  const fields = new Map((type.inputs.metadata ?? []).map((f) => [f.id, f]));
  const errors: FieldErrors = {};
  for (const [id, value] of Object.entries(metadata)) {
    const field = fields.get(id);
    if (!field) return `Additional properties are not allowed ('${id}' was unexpected)`;
    if (typeof value !== 'string') errors[id] = [`${pyRepr(value)} is not of type 'string'`];
    else if (field.choices && !field.choices.includes(value)) errors[id] = [`${pyRepr(value)} is not one of [${field.choices.map(pyRepr).join(', ')}]`];
  }
  for (const id of type.inputs.required ?? []) {
    if (fields.has(id) && !(metadata as Record<string, unknown>)[id] && !errors[id]) errors[id] = [`required for ${type.name}`];
  }
  return Object.keys(errors).length ? errors : null;
}

export async function checkInputSource(tx: Queryable, values: Values, existing: CredentialInputSourceRow | null): Promise<void> {
  const targetId = (values.target_credential ?? existing?.target_credential_id) as number;
  const sourceId = (values.source_credential ?? existing?.source_credential_id) as number;
  const inputName = (values.input_field_name ?? existing?.input_field_name) as string;
  const [target, source] = [await typeOf(tx, targetId), await typeOf(tx, sourceId)];
  const errors: FieldErrors = {};
  if (target?.kind === 'external') errors.target_credential = ['Target must be a non-external credential'];
  if (source && source.kind !== 'external') errors.source_credential = ['Source must be an external credential'];
  if (target && target.kind !== 'external') {
    const defined = fieldsOf(target.inputs).map((f) => f.id);
    if (!defined.includes(inputName)) errors.input_field_name = [`Input field must be defined on target credential (options are ${[...defined].sort().join(', ')}).`];
  }
  if (source?.kind === 'external' && ('metadata' in values || 'source_credential' in values || !existing)) {
    const metadata = 'metadata' in values ? values.metadata ?? {} : existing?.metadata ?? {};
    const problems = metadataProblems(source, metadata);
    if (problems) errors.metadata = (typeof problems === 'string' ? [problems] : problems) as unknown as string[];
  }
  if (Object.keys(errors).length) throw new ValidationError(errors);
}
