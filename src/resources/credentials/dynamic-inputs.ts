/**
 * Inputs of a credential that come from external secret stores (credential input sources): looked
 * up each time the credential is used, never stored (AWX's Credential._get_dynamic_input). A lookup
 * that fails throws LookupFailed with what went wrong, naming the credentials and the input, never
 * a secret.
 */
import type { EnvConfig } from '../../config/env.ts';
import type { Queryable } from '../../db/database.ts';
import { outboundPolicy } from '../../net/outbound.ts';
import { fieldsOf } from '../credential-types/type-schema.ts';
import { lookupBackend } from '../credential-input-sources/lookups/backends.ts';
import { LookupFailed, type LookupContext } from '../credential-input-sources/lookups/lookup.ts';
import { clearInputs, type CredentialTypeRow, type Inputs } from './credential-inputs.ts';

export { LookupFailed, type LookupContext };

export interface LookupServices {
  settings: { get(key: 'OUTBOUND_URL_ALLOWLIST'): string[] };
  env: Pick<EnvConfig, 'secretStoreUrl'>;
}

/** Lookups as the service's settings allow them: through the outbound guard and its allow-list. */
export const lookupsOf = (services: LookupServices, signal?: AbortSignal): LookupContext => ({
  policy: outboundPolicy(services.settings), signal, storeUrl: services.env.secretStoreUrl,
});

/** For callers outside a service (tests, tools): the guard with no exception to its address rules. */
export const STRICT_LOOKUPS: LookupContext = { policy: { allowed: [] } };

interface SourceLink {
  input_field_name: string;
  metadata: Record<string, unknown> | null;
  source_id: number;
  source_name: string;
  source_inputs: Inputs | null;
  type_id: number;
  type_name: string;
  type_kind: string;
  type_namespace: string | null;
  type_managed: boolean;
  type_inputs: CredentialTypeRow['inputs'];
}

/** The arguments of a lookup: the source's inputs in clear (defaults filled in), then the metadata's defaults and values. */
export function lookupArgs(type: CredentialTypeRow, sourceInputs: Inputs, metadata: Record<string, unknown>): Record<string, unknown> {
  return { ...clearInputs(type, sourceInputs), ...metadataArgs(type, metadata) };
}

/** The metadata with the defaults of the type's metadata fields. */
export function metadataArgs(type: Pick<CredentialTypeRow, 'inputs'>, metadata: Record<string, unknown>): Record<string, unknown> {
  const defaults = Object.fromEntries((type.inputs.metadata ?? []).filter((f) => f.default !== undefined).map((f) => [f.id, f.default]));
  return { ...defaults, ...metadata };
}

/** Looks up the value of one external credential (what the test endpoints call too). */
export async function lookUp(type: Pick<CredentialTypeRow, 'kind' | 'namespace'>, args: Record<string, unknown>, context: LookupContext): Promise<string> {
  if (type.kind !== 'external') throw new LookupFailed('Only external credentials can be tested.');
  return lookupBackend(type.namespace)(args, context);
}

/** The names of the inputs of a credential that input sources provide. */
export async function dynamicInputNames(db: Queryable, credentialId: number): Promise<string[]> {
  const rows = await db.query<{ input_field_name: string }>('SELECT input_field_name FROM credential_input_sources WHERE target_credential_id = $1', [credentialId]);
  return rows.map((r) => r.input_field_name);
}

/**
 * The values of the inputs of credential `credentialId` that input sources provide, looked up now
 * (in the order of their input names). Empty when the credential has none.
 */
export async function lookedUpInputs(db: Queryable, credentialId: number, credentialName: string, context: LookupContext): Promise<Inputs> {
  const links = await db.query<SourceLink>(
    `SELECT s.input_field_name, s.metadata, c.id AS source_id, c.name AS source_name, c.inputs AS source_inputs,
            t.id AS type_id, t.name AS type_name, t.kind AS type_kind, t.namespace AS type_namespace, t.managed AS type_managed, t.inputs AS type_inputs
       FROM credential_input_sources s JOIN credentials c ON c.id = s.source_credential_id JOIN credential_types t ON t.id = c.credential_type_id
      WHERE s.target_credential_id = $1 ORDER BY s.input_field_name`,
    [credentialId],
  );
  const values: Inputs = {};
  for (const link of links) {
    const type: CredentialTypeRow = { id: link.type_id, name: link.type_name, kind: link.type_kind, namespace: link.type_namespace, managed: link.type_managed, inputs: link.type_inputs, injectors: {} };
    try {
      values[link.input_field_name] = await lookUp(type, lookupArgs(type, link.source_inputs ?? {}, link.metadata ?? {}), context);
    } catch (err) {
      if (!(err instanceof LookupFailed)) throw err;
      throw new LookupFailed(
        `Could not look up input ${link.input_field_name} of credential "${credentialName}" from credential "${link.source_name}" (${link.type_name}): ${err.message}`,
      );
    }
  }
  return values;
}

/** Whether `id` names an input of the type (what an input source may provide). */
export const definesInput = (type: Pick<CredentialTypeRow, 'inputs'>, id: string) => fieldsOf(type.inputs).some((f) => f.id === id);
