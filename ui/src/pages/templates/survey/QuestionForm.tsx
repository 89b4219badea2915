import { useState } from 'react';
import { Button, Checkbox, Form, FormGroup, FormHelperText, FormSelect, FormSelectOption, Grid, GridItem, HelperText, HelperTextItem, Modal, ModalBody, ModalFooter, ModalHeader, TextArea, TextInput } from '@patternfly/react-core';
import { choicesOf, isChoiceType, isNumberType, QUESTION_TYPES, type DynamicChoices, type QuestionType, type SurveyQuestion } from './survey-types';
import { DynamicChoicesFields, dynamicChoicesOf, dynamicDraftOf, dynamicProblems, type DynamicDraft } from './DynamicChoicesFields';

/** The question as the form edits it: numbers and choices as text. */
interface Draft {
  question_name: string;
  question_description: string;
  variable: string;
  type: QuestionType;
  required: boolean;
  min: string;
  max: string;
  choices: string;
  default: string;
  /** Multiselect defaults. */
  defaults: string[];
  dynamic: DynamicDraft;
}

const text = (v: unknown) => (v === undefined || v === null ? '' : String(v));

function draftOf(q?: SurveyQuestion): Draft {
  const multiDefault = q?.type === 'multiselect' ? (Array.isArray(q.default) ? q.default.map(String) : text(q.default).split('\n').filter(Boolean)) : [];
  return {
    question_name: q?.question_name ?? '',
    question_description: q?.question_description ?? '',
    variable: q?.variable ?? '',
    type: q?.type ?? 'text',
    required: q?.required ?? true,
    min: q ? text(q.min) : '0',
    max: q ? text(q.max) : '1024',
    choices: q ? choicesOf(q).join('\n') : '',
    default: q?.type === 'multiselect' ? '' : text(q?.default),
    defaults: multiDefault,
    dynamic: dynamicDraftOf(q?.dynamic_choices as DynamicChoices | undefined),
  };
}

function problemsOf(d: Draft, others: string[]): Record<string, string> {
  const problems: Record<string, string> = {};
  if (!d.question_name.trim()) problems.question_name = 'A question is required.';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(d.variable)) problems.variable = 'A variable name: letters, digits and _, not starting with a digit.';
  else if (others.includes(d.variable)) problems.variable = 'Another question already sets this variable.';
  const integer = /^-?\d+$/;
  const number = d.type === 'float' ? /^-?\d+(\.\d+)?$/ : integer;
  if (!isChoiceType(d.type)) {
    if (d.min && !number.test(d.min)) problems.min = 'A number.';
    if (d.max && !number.test(d.max)) problems.max = 'A number.';
    if (!problems.min && !problems.max && d.min && d.max && Number(d.min) > Number(d.max)) problems.max = 'At least the minimum.';
  }
  if (isNumberType(d.type) && d.default && !number.test(d.default)) problems.default = d.type === 'integer' ? 'A whole number.' : 'A number.';
  if (isChoiceType(d.type)) {
    const choices = d.choices.split('\n').map((c) => c.trim()).filter(Boolean);
    // Choices from a source need no list here, and a default need not be among those listed.
    if (!d.dynamic.enabled && !choices.length) problems.choices = 'At least one choice.';
    if (!d.dynamic.enabled && d.type === 'multiplechoice' && d.default && !choices.includes(d.default)) problems.default = 'One of the choices.';
    for (const [key, problem] of Object.entries(dynamicProblems(d.dynamic))) problems[`dynamic.${key}`] = problem;
  }
  return problems;
}

function questionOf(d: Draft, original?: SurveyQuestion): SurveyQuestion {
  const q: SurveyQuestion = {
    ...(original ?? {}),
    question_name: d.question_name.trim(),
    question_description: d.question_description,
    variable: d.variable,
    type: d.type,
    required: d.required,
    min: null,
    max: null,
    default: '',
  };
  delete q.choices;
  delete q.dynamic_choices;
  if (isChoiceType(d.type)) {
    const dynamic = dynamicChoicesOf(d.dynamic);
    if (dynamic) q.dynamic_choices = dynamic;
    const choices = d.choices.split('\n').map((c) => c.trim()).filter(Boolean);
    q.choices = choices;
    q.default = d.type === 'multiselect' ? d.defaults.filter((c) => choices.includes(c)).join('\n') : d.dynamic.enabled && !choices.includes(d.default) ? '' : d.default;
  } else {
    q.min = d.min === '' ? null : Number(d.min);
    q.max = d.max === '' ? null : Number(d.max);
    q.default = isNumberType(d.type) ? (d.default === '' ? '' : Number(d.default)) : d.default;
  }
  return q;
}

/** Adds or edits one survey question with every field AWX gives a question. */
export function QuestionForm({ question, otherVariables, onSave, onClose }: {
  question?: SurveyQuestion;
  otherVariables: string[];
  onSave: (question: SurveyQuestion) => void;
  onClose: () => void;
}) {
  const [draft, setDraft] = useState(() => draftOf(question));
  const [shown, setShown] = useState<Record<string, string>>({});
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const save = (e?: React.FormEvent) => {
    e?.preventDefault();
    const problems = problemsOf(draft, otherVariables);
    setShown(problems);
    if (Object.keys(problems).length === 0) onSave(questionOf(draft, question));
  };
  const field = (key: keyof Draft, label: string, control: React.ReactNode, opts: { required?: boolean; hint?: string } = {}) => (
    <FormGroup label={label} fieldId={`question-${key}`} isRequired={opts.required}>
      {control}
      {(shown[key] || opts.hint) && (
        <FormHelperText>
          <HelperText>
            <HelperTextItem variant={shown[key] ? 'error' : 'default'} id={`question-${key}-help`}>{shown[key] ?? opts.hint}</HelperTextItem>
          </HelperText>
        </FormHelperText>
      )}
    </FormGroup>
  );
  const input = (key: 'question_name' | 'variable' | 'min' | 'max' | 'default', type = 'text') => (
    <TextInput
      id={`question-${key}`}
      type={type as 'text'}
      value={draft[key]}
      onChange={(_e, v) => set(key, v)}
      validated={shown[key] ? 'error' : 'default'}
      aria-describedby={`question-${key}-help`}
      autoComplete={type === 'password' ? 'new-password' : 'off'}
    />
  );
  const choices = draft.choices.split('\n').map((c) => c.trim()).filter(Boolean);
  const lengths = draft.type === 'text' || draft.type === 'textarea' || draft.type === 'password';

  return (
    <Modal isOpen variant="medium" onClose={onClose} aria-labelledby="question-title">
      <ModalHeader title={question ? `Edit question ${question.question_name}` : 'Add a question'} labelId="question-title" />
      <ModalBody>
        <Form onSubmit={save} id="question-form" aria-label="Survey question">
          <Grid hasGutter md={6}>
            <GridItem span={12} md={6}>{field('question_name', 'Question', input('question_name'), { required: true })}</GridItem>
            <GridItem span={12} md={6}>
              {field('variable', 'Answer variable name', input('variable'), { required: true, hint: 'The extra variable the answer sets.' })}
            </GridItem>
            <GridItem span={12}>
              {field('question_description', 'Description', <TextInput id="question-question_description" value={draft.question_description} onChange={(_e, v) => set('question_description', v)} />)}
            </GridItem>
            <GridItem span={12} md={6}>
              {field(
                'type',
                'Answer type',
                <FormSelect id="question-type" value={draft.type} onChange={(_e, v) => set('type', v as QuestionType)}>
                  {QUESTION_TYPES.map(([value, label]) => <FormSelectOption key={value} value={value} label={label} />)}
                </FormSelect>,
                { required: true },
              )}
            </GridItem>
            <GridItem span={12} md={6}>
              <FormGroup fieldId="question-required" label="Answer" role="group">
                <Checkbox id="question-required" label="Required" isChecked={draft.required} onChange={(_e, v) => set('required', v)} />
              </FormGroup>
            </GridItem>
            {!isChoiceType(draft.type) && (
              <>
                <GridItem span={6}>{field('min', lengths ? 'Minimum length' : 'Minimum', input('min', 'number'))}</GridItem>
                <GridItem span={6}>{field('max', lengths ? 'Maximum length' : 'Maximum', input('max', 'number'))}</GridItem>
              </>
            )}
            {isChoiceType(draft.type) && (
              <GridItem span={12}>
                {field(
                  'choices',
                  'Choices',
                  <TextArea id="question-choices" value={draft.choices} onChange={(_e, v) => set('choices', v)} validated={shown.choices ? 'error' : 'default'} resizeOrientation="vertical" />,
                  { required: !draft.dynamic.enabled, hint: draft.dynamic.enabled ? 'Optional with dynamic choices.' : 'One choice a line.' },
                )}
              </GridItem>
            )}
            {isChoiceType(draft.type) && (
              <GridItem span={12}>
                <DynamicChoicesFields
                  draft={draft.dynamic}
                  onChange={(dynamic) => set('dynamic', dynamic)}
                  problems={Object.fromEntries(Object.entries(shown).filter(([k]) => k.startsWith('dynamic.')).map(([k, v]) => [k.slice('dynamic.'.length), v]))}
                />
              </GridItem>
            )}
            <GridItem span={12}>
              {draft.type === 'multiselect'
                ? field(
                    'defaults',
                    'Default answers',
                    <div role="group" aria-label="Default answers">
                      {choices.length === 0 && <span>Add choices first.</span>}
                      {choices.map((c) => (
                        <Checkbox
                          key={c}
                          id={`question-default-${c}`}
                          label={c}
                          isChecked={draft.defaults.includes(c)}
                          onChange={(_e, checked) => set('defaults', checked ? [...draft.defaults, c] : draft.defaults.filter((x) => x !== c))}
                        />
                      ))}
                    </div>,
                  )
                : draft.type === 'multiplechoice'
                  ? field(
                      'default',
                      'Default answer',
                      <FormSelect id="question-default" value={draft.default} onChange={(_e, v) => set('default', v)} validated={shown.default ? 'error' : 'default'}>
                        <FormSelectOption value="" label="None" />
                        {choices.map((c) => <FormSelectOption key={c} value={c} label={c} />)}
                      </FormSelect>,
                    )
                  : draft.type === 'textarea'
                    ? field('default', 'Default answer', <TextArea id="question-default" value={draft.default} onChange={(_e, v) => set('default', v)} resizeOrientation="vertical" />)
                    : field('default', 'Default answer', input('default', draft.type === 'password' ? 'password' : isNumberType(draft.type) ? 'number' : 'text'))}
            </GridItem>
          </Grid>
          <button type="submit" hidden />
        </Form>
      </ModalBody>
      <ModalFooter>
        <Button variant="primary" onClick={() => save()}>{question ? 'Update question' : 'Add question'}</Button>
        <Button variant="link" onClick={onClose}>Cancel</Button>
      </ModalFooter>
    </Modal>
  );
}
