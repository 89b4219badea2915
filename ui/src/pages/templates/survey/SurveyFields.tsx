import { Checkbox, FormGroup, FormHelperText, FormSelect, FormSelectOption, HelperText, HelperTextItem, TextArea, TextInput } from '@patternfly/react-core';
import { choicesOf, type SurveyQuestion } from './survey-types';

/** The inputs of a survey's questions (inside a Form) (a launch's answers, a schedule's extra_data), each with its problem. */
export function SurveyFields({ spec, answers, onChange, errors }: {
  spec: SurveyQuestion[];
  answers: Record<string, unknown>;
  onChange: (variable: string, value: unknown) => void;
  errors: Record<string, string>;
}) {
  return (
    <>
      {spec.map((q) => (
        <SurveyField key={q.variable} question={q} value={answers[q.variable]} onChange={(v) => onChange(q.variable, v)} error={errors[q.variable]} />
      ))}
    </>
  );
}

function SurveyField({ question: q, value, onChange, error }: { question: SurveyQuestion; value: unknown; onChange: (value: unknown) => void; error?: string }) {
  const id = `survey-${q.variable}`;
  const validated = error ? 'error' : 'default';
  const text = value === undefined || value === null ? '' : String(value);
  let control;
  if (q.type === 'textarea') {
    control = <TextArea id={id} value={text} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`} resizeOrientation="vertical" />;
  } else if (q.type === 'multiplechoice') {
    control = (
      <FormSelect id={id} value={text} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`}>
        <FormSelectOption value="" label="Choose one" isDisabled={q.required} />
        {choicesOf(q).map((c) => <FormSelectOption key={c} value={c} label={c} />)}
      </FormSelect>
    );
  } else if (q.type === 'multiselect') {
    const picked = Array.isArray(value) ? value.map(String) : [];
    control = (
      <div role="group" aria-labelledby={`${id}-label`} id={id}>
        {choicesOf(q).map((c) => (
          <Checkbox
            key={c}
            id={`${id}-${c}`}
            label={c}
            isChecked={picked.includes(c)}
            onChange={(_e, checked) => onChange(checked ? [...picked, c] : picked.filter((p) => p !== c))}
          />
        ))}
      </div>
    );
  } else {
    const type = q.type === 'password' ? 'password' : q.type === 'integer' || q.type === 'float' ? 'number' : 'text';
    control = (
      <TextInput
        id={id}
        type={type}
        step={q.type === 'float' ? 'any' : undefined}
        value={text}
        onChange={(_e, v) => onChange(v)}
        validated={validated}
        aria-describedby={`${id}-help`}
        autoComplete={type === 'password' ? 'new-password' : 'off'}
      />
    );
  }
  return (
    <FormGroup label={q.question_name} fieldId={id} isRequired={q.required}>
      <span id={`${id}-label`} hidden>{q.question_name}</span>
      {control}
      <FormHelperText>
        <HelperText>
          <HelperTextItem variant={error ? 'error' : 'default'} id={`${id}-help`}>
            {error ?? q.question_description ?? ''}
          </HelperTextItem>
        </HelperText>
      </FormHelperText>
    </FormGroup>
  );
}
