import { useState } from 'react';
import { Checkbox, FormGroup, FormSelect, FormSelectOption, NumberInput, TextArea, TextInput } from '@patternfly/react-core';
import type { FieldMeta } from '../api/types';
import { referencedResource } from '../resources/references';
import { ReferenceSelect } from './ReferenceSelect';
import { PlaybookSelect } from './PlaybookSelect';
import { VariablesEditor } from './VariablesEditor';
import { ChoiceListInput } from './ChoiceListInput';
import { fieldHelp } from './field-help';

const LONG_TEXT = /(^|_)(description|body|message|script|inputs_help)$|^(limit|job_tags|skip_tags)$/;
/** Text fields holding YAML or JSON variables (OPTIONS calls them strings). */
const VARIABLES = /^(variables|extra_vars|source_vars|extra_data)$/;
const SECRET = /password|secret|token|ssh_key_data|ssh_key_unlock|key_data|webhook_key/;

export interface FieldInputProps {
  name: string;
  meta: FieldMeta;
  value: unknown;
  onChange: (value: unknown) => void;
  error?: string;
  /** Query for a reference's lookup (an organization's objects only, say). */
  lookupQuery?: Record<string, string | number>;
  /** The other values of the form, for fields that depend on them (a playbook on its project). */
  values?: Record<string, unknown>;
  /** Shown beside the label (a "Prompt on launch" switch). */
  labelInfo?: React.ReactNode;
  /** The label instead of OPTIONS' own. */
  label?: string;
}

/** One form control for a field of OPTIONS (its type, choices, label and help), with its error. */
export function FieldInput({ name, meta, value, onChange, error, lookupQuery, values, labelInfo, label: ownLabel }: FieldInputProps) {
  const id = `field-${name}`;
  const label = ownLabel ?? meta.label ?? name;
  const validated = error ? 'error' : 'default';
  const help = fieldHelp(id, error, meta.help_text);
  const describedBy = help ? `${id}-help` : undefined;

  if (meta.choices && (meta.type === 'list' || meta.type === 'json' || Array.isArray(meta.default))) {
    return <ChoiceListInput id={id} label={label} meta={meta} value={value} onChange={onChange} error={error} />;
  }
  if (meta.type === 'json' || VARIABLES.test(name)) {
    return <VariablesEditor id={id} label={label} labelInfo={labelInfo} value={value} onChange={(text) => onChange(text === undefined ? INVALID : text)} error={error} helperText={meta.help_text} />;
  }
  if (meta.type === 'boolean') {
    return (
      <FormGroup fieldId={id}>
        <Checkbox id={id} label={label} isChecked={!!value} onChange={(_e, checked) => onChange(checked)} description={meta.help_text} />
        {labelInfo}
        {error && help}
      </FormGroup>
    );
  }

  let control;
  if (meta.type === 'list' || (Array.isArray(value) && meta.type !== 'json')) {
    return (
      <FormGroup label={label} labelInfo={labelInfo} fieldId={id} isRequired={!!meta.required}>
        <ListInput id={id} value={value} onChange={onChange} validated={validated} describedBy={describedBy} />
        {help}
      </FormGroup>
    );
  }
  const reference = referencedResource(name);
  if (name === 'playbook' && values && 'project' in values) {
    control = <PlaybookSelect id={id} project={values.project} value={value} onChange={onChange} validated={validated} />;
  } else if ((meta.type === 'id' || meta.type === 'field') && reference) {
    control = (
      <ReferenceSelect id={id} label={label} listUrl={`/api/v2/${reference}/`} value={value as number | null} onChange={onChange} query={lookupQuery} validated={validated} />
    );
  } else if (meta.choices) {
    control = (
      <FormSelect id={id} value={value === null || value === undefined ? '' : String(value)} onChange={(_e, v) => onChange(choiceValue(meta, v))} validated={validated} aria-describedby={describedBy}>
        {(!meta.required || meta.allow_null) && !meta.choices.some(([v]) => v === '') && <FormSelectOption value="" label="—" />}
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
    control = <TextArea id={id} value={String(value ?? '')} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={describedBy} resizeOrientation="vertical" />;
  } else {
    const type = meta.type === 'datetime' ? 'datetime-local' : SECRET.test(name) ? 'password' : 'text';
    control = (
      <TextInput id={id} type={type} value={String(value ?? '')} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={describedBy} autoComplete={type === 'password' ? 'new-password' : 'off'} />
    );
  }
  return (
    <FormGroup label={label} labelInfo={labelInfo} fieldId={id} isRequired={!!meta.required}>
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

/** A list of strings, one per line; the text is kept as typed (blank lines too) while editing. */
function ListInput({ id, value, onChange, validated, describedBy }: { id: string; value: unknown; onChange: (value: string[]) => void; validated: 'error' | 'default'; describedBy?: string }) {
  const [text, setText] = useState(() => (Array.isArray(value) ? value.map(String).join('\n') : String(value ?? '')));
  return (
    <TextArea
      id={id}
      value={text}
      aria-describedby={describedBy}
      validated={validated}
      resizeOrientation="vertical"
      onChange={(_e, next) => {
        setText(next);
        onChange(next.split('\n').map((line) => line.trim()).filter(Boolean));
      }}
    />
  );
}
