import { Checkbox, FormGroup, FormHelperText, FormSelect, FormSelectOption, HelperText, HelperTextItem, NumberInput, TextArea, TextInput } from '@patternfly/react-core';
import type { FieldMeta } from '../api/types';
import { referencedResource } from '../resources/references';
import { ReferenceSelect } from './ReferenceSelect';
import { VariablesEditor } from './VariablesEditor';

const LONG_TEXT = /(^|_)(description|body|message|script|inputs_help)$|^(limit|job_tags|skip_tags)$/;
const VARIABLES = /^(variables|extra_vars|source_vars)$/;
const SECRET = /password|secret|token|ssh_key_data|ssh_key_unlock|key_data/;

export interface FieldInputProps {
  name: string;
  meta: FieldMeta;
  value: unknown;
  onChange: (value: unknown) => void;
  error?: string;
  /** Query for a reference's lookup (an organization's objects only, say). */
  lookupQuery?: Record<string, string | number>;
}

/** One form control for a field of OPTIONS (its type, choices, label and help), with its error. */
export function FieldInput({ name, meta, value, onChange, error, lookupQuery }: FieldInputProps) {
  const id = `field-${name}`;
  const label = meta.label ?? name;
  const validated = error ? 'error' : 'default';
  const help = (
    <FormHelperText>
      <HelperText>
        <HelperTextItem variant={error ? 'error' : 'default'} id={`${id}-help`}>
          {error ?? meta.help_text ?? ''}
        </HelperTextItem>
      </HelperText>
    </FormHelperText>
  );

  // Variables are text to the API (YAML or JSON), so OPTIONS calls them strings.
  if (meta.type === 'json' || VARIABLES.test(name)) {
    return <VariablesEditor id={id} label={label} value={value} onChange={(text) => onChange(text === undefined ? INVALID : text)} error={error} helperText={meta.help_text} />;
  }
  if (meta.type === 'boolean') {
    return (
      <FormGroup fieldId={id}>
        <Checkbox id={id} label={label} isChecked={!!value} onChange={(_e, checked) => onChange(checked)} description={meta.help_text} />
        {error && help}
      </FormGroup>
    );
  }

  let control;
  const reference = referencedResource(name);
  if ((meta.type === 'id' || meta.type === 'field') && reference) {
    control = (
      <ReferenceSelect id={id} label={label} listUrl={`/api/v2/${reference}/`} value={value as number | null} onChange={onChange} query={lookupQuery} validated={validated} />
    );
  } else if (meta.choices) {
    control = (
      <FormSelect id={id} value={value === null || value === undefined ? '' : String(value)} onChange={(_e, v) => onChange(choiceValue(meta, v))} validated={validated} aria-describedby={`${id}-help`}>
        {(!meta.required || meta.allow_null) && <FormSelectOption value="" label="—" />}
        {meta.choices.map(([v, l]) => (
          <FormSelectOption key={String(v)} value={String(v)} label={l} />
        ))}
      </FormSelect>
    );
  } else if (meta.type === 'integer' || meta.type === 'float') {
    control = (
      <NumberInput
        inputName={name}
        inputAriaLabel={label}
        id={id}
        value={value === null || value === undefined || value === '' ? '' : Number(value)}
        onChange={(e) => {
          const text = (e.target as HTMLInputElement).value;
          onChange(text === '' ? (meta.allow_null ? null : '') : Number(text));
        }}
        onMinus={() => onChange(Number(value ?? 0) - 1)}
        onPlus={() => onChange(Number(value ?? 0) + 1)}
        validated={validated}
        minusBtnAriaLabel={`${label} minus`}
        plusBtnAriaLabel={`${label} plus`}
      />
    );
  } else if (LONG_TEXT.test(name)) {
    control = <TextArea id={id} value={String(value ?? '')} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`} resizeOrientation="vertical" />;
  } else {
    const type = meta.type === 'datetime' ? 'datetime-local' : SECRET.test(name) ? 'password' : 'text';
    control = (
      <TextInput id={id} type={type} value={String(value ?? '')} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`} autoComplete={type === 'password' ? 'new-password' : 'off'} />
    );
  }
  return (
    <FormGroup label={label} fieldId={id} isRequired={!!meta.required}>
      {control}
      {help}
    </FormGroup>
  );
}

/** A value the editor holds while its text does not parse; the form refuses to send it. */
export const INVALID = Symbol('invalid');

function choiceValue(meta: FieldMeta, text: string): unknown {
  if (text === '') return meta.allow_null ? null : '';
  const match = meta.choices?.find(([v]) => String(v) === text);
  return match ? match[0] : text;
}
