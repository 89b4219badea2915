import { Button, Checkbox, FormGroup, FormHelperText, FormSelect, FormSelectOption, HelperText, HelperTextItem, TextArea, TextInput } from '@patternfly/react-core';
import { SyncAltIcon } from '@patternfly/react-icons';
import { choicesOf, isDynamic, type ResolvedChoices, type SurveyQuestion } from './survey-types';

/** The choices of the dynamic questions, as loaded from the template's survey_spec/dynamic_choices/. */
export interface LoadedChoices {
  byVariable: Record<string, ResolvedChoices>;
  loading: boolean;
  refresh: () => void;
}

/** The inputs of a survey's questions (inside a Form) (a launch's answers, a schedule's extra_data), each with its problem. */
export function SurveyFields({ spec, answers, onChange, errors, dynamic, idPrefix = 'survey' }: {
  spec: SurveyQuestion[];
  answers: Record<string, unknown>;
  onChange: (variable: string, value: unknown) => void;
  errors: Record<string, string>;
  /** Without it, dynamic questions offer their static choices. */
  dynamic?: LoadedChoices;
  /** Prefix of the inputs' ids, for forms holding several surveys. */
  idPrefix?: string;
}) {
  return (
    <>
      {spec.map((q) => (
        <SurveyField key={q.variable} id={`${idPrefix}-${q.variable}`} question={q} value={answers[q.variable]} onChange={(v) => onChange(q.variable, v)} error={errors[q.variable]} dynamic={dynamic} />
      ))}
    </>
  );
}

/** The options a question offers: its source's when loaded (the answer already given kept among them). */
function optionsOf(q: SurveyQuestion, value: unknown, dynamic?: LoadedChoices): string[] {
  if (!dynamic || !isDynamic(q)) return choicesOf(q);
  const loaded = dynamic.byVariable[q.variable]?.choices ?? [];
  const given = (Array.isArray(value) ? value.map(String) : value ? [String(value)] : []).filter((v) => !loaded.includes(v));
  return [...loaded, ...given];
}

function SurveyField({ id, question: q, value, onChange, error, dynamic }: { id: string; question: SurveyQuestion; value: unknown; onChange: (value: unknown) => void; error?: string; dynamic?: LoadedChoices }) {
  const validated = error ? 'error' : 'default';
  const text = value === undefined || value === null ? '' : String(value);
  const options = optionsOf(q, value, dynamic);
  const fromSource = dynamic && isDynamic(q);
  const sourceError = fromSource ? dynamic.byVariable[q.variable]?.error : undefined;
  let control;
  if (q.type === 'textarea') {
    control = <TextArea id={id} value={text} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`} resizeOrientation="vertical" />;
  } else if (q.type === 'multiplechoice') {
    control = (
      <FormSelect id={id} value={text} onChange={(_e, v) => onChange(v)} validated={validated} aria-describedby={`${id}-help`}>
        <FormSelectOption value="" label={fromSource && dynamic.loading ? 'Loading choices…' : 'Choose one'} isDisabled={q.required} />
        {options.map((c) => <FormSelectOption key={c} value={c} label={c} />)}
      </FormSelect>
    );
  } else if (q.type === 'multiselect') {
    const picked = Array.isArray(value) ? value.map(String) : [];
    control = (
      <div role="group" aria-labelledby={`${id}-label`} id={id}>
        {fromSource && dynamic.loading && <span>Loading choices…</span>}
        {options.map((c) => (
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
      {fromSource && (
        <Button variant="link" isInline icon={<SyncAltIcon />} onClick={dynamic.refresh} isDisabled={dynamic.loading} aria-label={`Refresh the choices of ${q.variable}`}>
          Refresh choices
        </Button>
      )}
      <FormHelperText>
        <HelperText>
          {sourceError && (
            <HelperTextItem variant="warning" id={`${id}-source-error`}>
              {`The choices could not be loaded: ${sourceError}`}
            </HelperTextItem>
          )}
          <HelperTextItem variant={error ? 'error' : 'default'} id={`${id}-help`}>
            {error ?? q.question_description ?? ''}
          </HelperTextItem>
        </HelperText>
      </FormHelperText>
    </FormGroup>
  );
}
