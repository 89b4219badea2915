/** The shapes of a credential type's `inputs` and `injectors` (AWX's), shared by validation and injection. */

export interface InputField {
  id: string;
  label: string;
  type: 'string' | 'boolean';
  secret?: boolean;
  multiline?: boolean;
  format?: 'ssh_private_key' | 'url' | 'vault_id';
  choices?: string[];
  help_text?: string;
  default?: string | boolean;
  /** Managed types only: the value "ASK" means "prompt at launch". */
  ask_at_runtime?: boolean;
}

export interface TypeInputs {
  fields?: InputField[];
  required?: string[];
  /** Managed types only: an input that may be set only with the others. */
  dependencies?: Record<string, string[]>;
  /** External types only: what an input source linking to a credential of the type gives (AWX's metadata). */
  metadata?: InputField[];
}

export interface Injectors {
  env?: Record<string, string>;
  extra_vars?: Record<string, string>;
  /** "template" for one file, or "template.<name>" for several. */
  file?: Record<string, string>;
}

export interface CredentialTypeDefinition {
  namespace: string;
  kind: string;
  name: string;
  description?: string;
  inputs: TypeInputs;
  injectors?: Injectors;
}

/** Constructors keeping the definitions short. */
export const text = (id: string, label: string, extra: Partial<InputField> = {}): InputField => ({ id, label, type: 'string', ...extra });
export const secretText = (id: string, label: string, extra: Partial<InputField> = {}): InputField => text(id, label, { secret: true, ...extra });
export const flag = (id: string, label: string, extra: Partial<InputField> = {}): InputField => ({ id, label, type: 'boolean', ...extra });

export const fieldsOf = (inputs: TypeInputs | null | undefined): InputField[] => (Array.isArray(inputs?.fields) ? inputs!.fields : []);
export const secretFieldIds = (inputs: TypeInputs): Set<string> => new Set(fieldsOf(inputs).filter((f) => f.secret === true).map((f) => f.id));
