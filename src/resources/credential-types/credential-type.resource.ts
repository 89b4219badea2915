import { isSuperuser, type AccessPolicy } from '../../api/access.ts';
import { forbidden, ValidationError } from '../../api/errors.ts';
import { boolean, choice, json, text } from '../../api/fields.ts';
import { reverse } from '../../api/relations.ts';
import { defineResource } from '../../api/resource.ts';
import type { Queryable } from '../../db/database.ts';
import type { Injectors, TypeInputs } from './type-schema.ts';
import { validateInjectors, validateTypeInputs } from './type-validation.ts';
import type { CredentialTypeRow } from '../../db/tables.ts';

export const CREDENTIAL_KINDS = [
  ['ssh', 'Machine'],
  ['vault', 'Vault'],
  ['net', 'Network'],
  ['scm', 'Source Control'],
  ['cloud', 'Cloud'],
  ['registry', 'Container Registry'],
  ['token', 'Personal Access Token'],
  ['insights', 'Insights'],
  ['external', 'External'],
  ['kubernetes', 'Kubernetes'],
  ['galaxy', 'Galaxy/Automation Hub'],
  ['cryptography', 'Cryptography'],
] as const;

const inUse = async (tx: Queryable, typeId: number) => (await tx.query('SELECT 1 FROM credentials WHERE credential_type_id = $1 LIMIT 1', [typeId])).length > 0;

const credentialTypeAccess: AccessPolicy<CredentialTypeRow> = {
  // Every signed-in user sees every type (as AWX).
  visible: () => null,
  canCreate: isSuperuser,
  // Managed types are read-only for everyone; a superuser trying gets AWX's message.
  canChange: (ctx, _tx, row, values) => {
    if (!row.managed) return isSuperuser(ctx);
    if (isSuperuser(ctx) && Object.keys(values).length) throw forbidden('Modifications not allowed for managed credential types');
    return false;
  },
  canDelete: (ctx, _tx, row) => isSuperuser(ctx) && !row.managed,
  canAttach: () => false,
};

/** Checks kind, inputs and injectors of a custom type as they will be after the write. */
async function checkDefinition(tx: Queryable, values: Record<string, unknown>, existing: CredentialTypeRow | null): Promise<void> {
  const kind = values.kind ?? existing?.kind;
  if ('kind' in values && kind !== 'cloud' && kind !== 'net') throw ValidationError.field('kind', `Must be 'cloud' or 'net', not ${String(kind)}`);
  let inputs = existing?.inputs as TypeInputs | undefined;
  if ('inputs' in values) {
    inputs = validateTypeInputs(values.inputs ?? {});
    values.inputs = inputs;
    if (existing && JSON.stringify(inputs) !== JSON.stringify(existing.inputs) && (await inUse(tx, existing.id))) {
      throw forbidden('Modifications to inputs are not allowed for credential types that are in use');
    }
  }
  if ('inputs' in values || 'injectors' in values) {
    values.injectors = validateInjectors((values.injectors ?? existing?.injectors ?? {}) as Injectors, inputs ?? {});
  }
}

export const credentialTypes = defineResource<CredentialTypeRow>({
  name: 'credential_type',
  table: 'credential_types',
  label: 'Credential Type List',
  description: 'Credential types define the inputs of credentials and how they are injected into runs.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false, helpText: 'Name of this credential type.' }),
    description: text({ helpText: 'Optional description of this credential type.' }),
    kind: choice(CREDENTIAL_KINDS, { required: true, helpText: "The kind of credential type; custom types are 'cloud' or 'net'." }),
    namespace: text({ readOnly: true, nullable: true }),
    managed: boolean({ readOnly: true }),
    inputs: json({ helpText: 'Enter inputs using either JSON or YAML syntax. Refer to the documentation for example syntax.' }),
    injectors: json({ helpText: 'Enter injectors using either JSON or YAML syntax. Refer to the documentation for example syntax.' }),
  },
  namedUrl: ['name', 'kind'],
  search: ['name', 'description'],
  ordering: 'kind,name',
  unique: [['name', 'kind']],
  related: { credentials: reverse('credential', 'credentials', 'credential_type_id', 'credential_type') },
  access: credentialTypeAccess,
  hooks: {
    beforeWrite: (tx, _ctx, values, existing) => checkDefinition(tx, values, existing),
    async beforeDelete(tx, _ctx, row) {
      if (await inUse(tx, row.id)) throw forbidden('Credential types that are in use cannot be deleted');
    },
  },
});
