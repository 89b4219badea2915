import { json, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import type { CredentialInputSourceRow } from '../../db/tables.ts';
import { inputSourceAccess } from './input-source-access.ts';
import { checkInputSource } from './input-source-checks.ts';

/** A credential's input looked up from an external credential's secret store at use (AWX's CredentialInputSource). */
export const credentialInputSources = defineResource<CredentialInputSourceRow>({
  name: 'credential_input_source',
  table: 'credential_input_sources',
  label: 'Credential Input Sources',
  description: "Links an input of a credential to an external credential: the input's value is looked up in the secret store each time the credential is used.",
  fields: {
    description: text({ helpText: 'Optional description of this credential input source.' }),
    input_field_name: text({ required: true, maxLength: 1024, allowBlank: false }),
    metadata: json({ default: {} }),
    target_credential: ref('credential', { required: true }),
    source_credential: ref('credential', { required: true }),
  },
  search: ['description', 'input_field_name'],
  ordering: 'target_credential,source_credential,input_field_name',
  unique: [['target_credential', 'input_field_name']],
  access: inputSourceAccess,
  hooks: { beforeWrite: (tx, _ctx, values, existing) => checkInputSource(tx, values, existing) },
});
