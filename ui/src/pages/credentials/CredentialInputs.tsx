import { Checkbox, FormGroup, FormHelperText, FormSelect, FormSelectOption, Grid, GridItem, HelperText, HelperTextItem, TextArea, TextInput, Title } from '@patternfly/react-core';
import { ENCRYPTED, SecretInput } from '../../components/SecretInput';

/** One input of a credential type (its `inputs.fields`). */
export interface InputField {
  id: string;
  label?: string;
  type?: 'string' | 'boolean';
  secret?: boolean;
  multiline?: boolean;
  choices?: string[];
  help_text?: string;
  default?: unknown;
  ask_at_runtime?: boolean;
}

export interface TypeInputs {
  fields?: InputField[];
  required?: string[];
}

/** The asking value: the secret is prompted for when a run starts. */
const ASK = 'ASK';

/** The typed inputs of a credential type, with the API's message under the input it names. */
export function CredentialInputs({ typeName, schema, values, stored, onChange, errors }: {
  typeName: string;
  schema: TypeInputs;
  values: Record<string, unknown>;
  /** The inputs as the credential was read (which secrets are saved). */
  stored: Record<string, unknown>;
  onChange: (id: string, value: unknown) => void;
  errors: Record<string, string>;
}) {
  const fields = schema.fields ?? [];
  const required = new Set(schema.required ?? []);
  if (!fields.length) return null;
  return (
    <section aria-label={`${typeName} inputs`}>
      <Title headingLevel="h2" size="md" style={{ margin: '1rem 0 0.5rem' }}>Type details</Title>
      <Grid hasGutter>
        {fields.map((field) => (
          <GridItem key={field.id} span={12} md={field.multiline ? 12 : 6}>
            <Input field={field} value={values[field.id]} stored={stored[field.id] === ENCRYPTED} required={required.has(field.id)} onChange={(v) => onChange(field.id, v)} error={errors[field.id]} />
          </GridItem>
        ))}
      </Grid>
    </section>
  );
}

function Input({ field, value, stored, required, onChange, error }: { field: InputField; value: unknown; stored: boolean; required: boolean; onChange: (v: unknown) => void; error?: string }) {
  const id = `input-${field.id}`;
  const label = field.label ?? field.id;
  const validated = error ? 'error' : 'default';
  const shown = value ?? field.default;
  const helper = (
    <FormHelperText>
      <HelperText>
        <HelperTextItem variant={error ? 'error' : 'default'} id={`${id}-help`}>{error ?? field.help_text ?? ''}</HelperTextItem>
      </HelperText>
    </FormHelperText>
  );

  if (field.type === 'boolean') {
    return (
      <FormGroup fieldId={id}>
        <Checkbox id={id} label={label} isChecked={!!shown} onChange={(_e, checked) => onChange(checked)} description={field.help_text} />
        {error && helper}
      </FormGroup>
    );
  }
  const ask = field.ask_at_runtime ? (
    <Checkbox id={`${id}-ask`} label="Prompt on launch" isChecked={value === ASK} onChange={(_e, checked) => onChange(checked ? ASK : '')} />
  ) : null;
  if (field.ask_at_runtime && value === ASK) {
    return (
      <FormGroup label={label} fieldId={`${id}-ask`} isRequired={required}>
        {ask}
        {helper}
      </FormGroup>
    );
  }
  if (field.secret) {
    return (
      <>
        <SecretInput id={id} label={label} value={String(shown ?? '')} onChange={onChange} stored={stored} multiline={field.multiline} required={required} error={error} helpText={field.help_text} />
        {ask}
      </>
    );
  }
  let control;
  if (field.choices?.length) {
    control = (
      <FormSelect id={id} value={String(shown ?? '')} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`}>
        <FormSelectOption value="" label="—" />
        {field.choices.map((c) => <FormSelectOption key={c} value={c} label={c} />)}
      </FormSelect>
    );
  } else if (field.multiline) {
    control = <TextArea id={id} className="drover-mono" value={String(shown ?? '')} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`} resizeOrientation="vertical" />;
  } else {
    control = <TextInput id={id} value={String(shown ?? '')} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`} autoComplete="off" />;
  }
  return (
    <FormGroup label={label} fieldId={id} isRequired={required}>
      {control}
      {helper}
    </FormGroup>
  );
}
