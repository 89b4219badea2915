/**
 * A credential's inputs against its type (AWX's rules and messages): unknown keys, types, choices,
 * formats, dependencies, private keys and their passphrase (required inputs are checked at use). Secret inputs are
 * stored encrypted, one value at a time (src/secrets/encryption.ts).
 */
import { ValidationError, type FieldErrors } from '../../api/errors.ts';
import { ENCRYPTED } from '../../api/fields.ts';
import { decryptSecret, encryptSecret, isEncryptedSecret } from '../../secrets/encryption.ts';
import { fieldsOf, type InputField, type TypeInputs } from '../credential-types/type-schema.ts';
import { inspectPrivateKey, KeyProblem } from './ssh-keys.ts';
import { checkInputSafety } from './input-safety.ts';

export interface CredentialTypeRow {
  id: number;
  name: string;
  kind: string;
  namespace: string | null;
  managed: boolean;
  inputs: TypeInputs;
  injectors: Record<string, Record<string, string>>;
}

export type Inputs = Record<string, unknown>;

/** What a secret input is encrypted for: its purpose names the input. */
export const inputPurpose = (id: string) => `credential.${id}`;

/** A value as Python prints it in AWX's messages. */
function pyRepr(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value === null || value === undefined) return 'None';
  return JSON.stringify(value);
}

/** AWX's value for an input sent as null or empty: the first choice, or the type's empty value. */
const emptyValue = (field: InputField) => (field.choices?.length ? field.choices[0] : field.type === 'boolean' ? false : '');

function checkFormat(field: InputField, value: string): string | null {
  if (value === '' || value === ENCRYPTED) return null;
  if (field.format === 'url') {
    let url: URL | null = null;
    try {
      url = new URL(value);
    } catch {
      return /^[a-z][a-z0-9+.-]*:/i.test(value) ? `Invalid URL: ${value}` : 'Invalid URL: Missing url scheme (http, https, etc.)';
    }
    return url.host ? null : `Invalid URL: ${value}`;
  }
  if (field.format === 'vault_id' && value.includes('@')) return '@ is not an allowed character';
  if (field.format === 'ssh_private_key') {
    try {
      inspectPrivateKey(value);
    } catch (err) {
      if (err instanceof KeyProblem) return err.message;
      throw err;
    }
  }
  return null;
}

function checkValue(field: InputField, value: unknown): string | null {
  const shown = field.secret ? 'The value' : pyRepr(value);
  if (typeof value !== field.type) return `${shown} is not of type '${field.type}'`;
  if (field.choices && !field.choices.includes(value as string)) return `${shown} is not one of [${field.choices.map(pyRepr).join(', ')}]`;
  return typeof value === 'string' ? checkFormat(field, value) : null;
}

/** The clear text of a secret being validated: kept values come from what is stored. */
const clearText = (id: string, value: unknown, stored: Inputs | null) =>
  value === ENCRYPTED && isEncryptedSecret(stored?.[id]) ? decryptSecret(inputPurpose(id), stored![id] as string) : value;

/** Passphrase rules of the managed types with a private key (AWX's, which JSON schema cannot say). */
function checkPassphrase(type: CredentialTypeRow, merged: Inputs, stored: Inputs | null, errors: FieldErrors): void {
  const ids = new Set(fieldsOf(type.inputs).map((f) => f.id));
  if (!type.managed || !ids.has('ssh_key_unlock') || errors.ssh_key_data) return;
  const key = clearText('ssh_key_data', merged.ssh_key_data, stored);
  const encrypted = typeof key === 'string' && key !== '' && inspectPrivateKey(key).encrypted;
  const unlock = merged.ssh_key_unlock;
  if (encrypted && !unlock) errors.ssh_key_unlock = ['must be set when SSH key is encrypted.'];
  if (!encrypted && key && unlock) errors.ssh_key_unlock = ['should not be set when SSH key is not encrypted.'];
}

/**
 * Validates `incoming` inputs (the whole dictionary, as AWX replaces it on every write) for a
 * credential of `type`; `stored` are the current inputs on update, whose secrets "$encrypted$"
 * keeps. Answers what to store, with secrets encrypted; throws {"inputs": {...}} otherwise.
 */
export function prepareInputs(type: CredentialTypeRow, incoming: Inputs, stored: Inputs | null): Inputs {
  const fields = new Map(fieldsOf(type.inputs).map((f) => [f.id, f]));
  const errors: FieldErrors = {};
  const merged: Inputs = {};
  for (const [id, raw] of Object.entries(incoming)) {
    const field = fields.get(id);
    if (!field) {
      errors[id] = [`Additional properties are not allowed ('${id}' was unexpected)`];
      continue;
    }
    if (field.secret && raw === ENCRYPTED) {
      if (stored && id in stored) merged[id] = ENCRYPTED;
      else errors[id] = [`${ENCRYPTED} is a reserved keyword, and cannot be used for ${id}.`];
      continue;
    }
    const value = raw === null || raw === '' ? emptyValue(field) : raw;
    const problem = checkValue(field, value);
    if (problem) errors[id] = [problem];
    else merged[id] = value;
  }
  for (const [id, needs] of Object.entries(type.inputs.dependencies ?? {})) {
    const missing = needs.find((other) => !(other in merged));
    if (id in merged && missing && !errors[id]) errors[id] = [`cannot be set unless "${fields.get(missing)?.label ?? missing}" is set`];
  }
  // Required inputs are checked when the credential is used, not here (credential-use.ts missingInputsProblem), as AWX.
  checkPassphrase(type, merged, stored, errors);
  checkInputSafety(type, merged, errors);
  if (Object.keys(errors).length) throw new ValidationError({ inputs: errors } as unknown as FieldErrors);
  return storedForm(fields, merged, stored);
}

function storedForm(fields: Map<string, InputField>, merged: Inputs, stored: Inputs | null): Inputs {
  const out: Inputs = {};
  for (const [id, value] of Object.entries(merged)) {
    const field = fields.get(id)!;
    if (!field.secret) out[id] = value;
    else if (value === ENCRYPTED) out[id] = stored![id];
    // An empty secret is no secret (AWX drops it); "ASK" (prompt at launch) is not a secret either.
    else if (value === '') continue;
    else out[id] = field.ask_at_runtime && value === 'ASK' ? value : encryptSecret(inputPurpose(id), value as string);
  }
  return out;
}

/** Stored inputs in clear, with the type's defaults for what is missing; SecretDecryptionError when the key changed. */
export function clearInputs(type: CredentialTypeRow, stored: Inputs): Inputs {
  const out: Inputs = {};
  for (const field of fieldsOf(type.inputs)) if (field.default !== undefined) out[field.id] = field.default;
  for (const [id, value] of Object.entries(stored)) out[id] = isEncryptedSecret(value) ? decryptSecret(inputPurpose(id), value) : value;
  return out;
}

/** Stored inputs as the API shows them: every encrypted value reads "$encrypted$". */
export function displayInputs(stored: unknown): unknown {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return stored;
  return Object.fromEntries(Object.entries(stored).map(([id, value]) => [id, isEncryptedSecret(value) ? ENCRYPTED : value]));
}

/** Stored inputs in clear, as they are (no defaults added): what a copy is made from. */
export function decryptStored(stored: Inputs): Inputs {
  return Object.fromEntries(Object.entries(stored).map(([id, value]) => [id, isEncryptedSecret(value) ? decryptSecret(inputPurpose(id), value) : value]));
}
