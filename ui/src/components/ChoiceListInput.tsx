import { Checkbox, FormGroup } from '@patternfly/react-core';
import { fieldHelp } from './field-help';
import type { FieldMeta } from '../api/types';

/** A list whose items come from the field's choices: one checkbox per choice, kept in the choices' order. */
export function ChoiceListInput({ id, label, meta, value, onChange, error }: { id: string; label: string; meta: FieldMeta; value: unknown; onChange: (value: unknown[]) => void; error?: string }) {
  const picked = Array.isArray(value) ? value : [];
  const choices = meta.choices ?? [];
  const toggle = (choice: string | number, on: boolean) => onChange(choices.map(([v]) => v).filter((v) => (v === choice ? on : picked.includes(v))));
  return (
    <FormGroup role="group" label={label} fieldId={id} isRequired={!!meta.required} isInline>
      {choices.map(([v, text]) => (
        <Checkbox key={String(v)} id={`${id}-${String(v)}`} label={text} isChecked={picked.includes(v)} onChange={(_e, on) => toggle(v, on)} />
      ))}
      {fieldHelp(id, error, meta.help_text)}
    </FormGroup>
  );
}
