import { useEffect, useState } from 'react';
import { Alert, Button, EmptyState, EmptyStateBody, Flex, FlexItem, Switch, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { ArrowDownIcon, ArrowUpIcon, PencilAltIcon, TrashIcon } from '@patternfly/react-icons';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from '../../api/client';
import type { ApiBody, ResourceObject } from '../../api/types';

type SurveyTemplate = ResourceObject<'job_templates' | 'workflow_job_templates'>;
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { QUESTION_TYPES, choicesOf, type SurveyQuestion, type SurveySpec } from './survey/survey-types';
import { QuestionForm } from './survey/QuestionForm';

const typeLabel = (type: string) => QUESTION_TYPES.find(([v]) => v === type)?.[1] ?? type;

function defaultText(q: SurveyQuestion): string {
  if (q.type === 'password' && q.default) return '••••••';
  if (Array.isArray(q.default)) return q.default.join(', ');
  const text = q.default === undefined || q.default === null ? '' : String(q.default);
  return (q.type === 'multiselect' ? text.split('\n').filter(Boolean).join(', ') : text) || '–';
}

/** The survey of a job or workflow template: its questions in order, whether it is asked, saved as a whole. */
export default function SurveyBuilder({ object }: { object: SurveyTemplate }) {
  const url = `${object.url}survey_spec/`;
  const survey = useQuery({ queryKey: [url], queryFn: () => http.get<Partial<SurveySpec>>(url) });
  if (survey.isPending) return <Loading />;
  if (survey.error) return <ErrorAlert error={survey.error} />;
  return <Builder object={object} url={url} stored={survey.data} />;
}

function Builder({ object, url, stored }: { object: SurveyTemplate; url: string; stored: Partial<SurveySpec> }) {
  const queryClient = useQueryClient();
  const canEdit = !!object.summary_fields?.user_capabilities?.edit;
  const [questions, setQuestions] = useState<SurveyQuestion[]>(stored.spec ?? []);
  const [dirty, setDirty] = useState(false);
  const [editing, setEditing] = useState<number | 'new' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState(false);
  const [enabled, setEnabled] = useState(!!object.survey_enabled);

  useEffect(() => setEnabled(!!object.survey_enabled), [object.survey_enabled]);

  const change = (next: SurveyQuestion[]) => {
    setQuestions(next);
    setDirty(true);
    setSaved(false);
  };
  const move = (index: number, by: number) => {
    const next = [...questions];
    [next[index], next[index + by]] = [next[index + by], next[index]];
    change(next);
  };

  const save = async () => {
    setSaving(true);
    setError(null);
    try {
      if (questions.length) await http.post(url, { name: stored.name ?? '', description: stored.description ?? '', spec: questions });
      else await http.delete(url);
      setDirty(false);
      setSaved(true);
      await queryClient.invalidateQueries({ queryKey: [url] });
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };

  const toggle = async (on: boolean) => {
    setError(null);
    setEnabled(on);
    try {
      await http.patch(object.url, { survey_enabled: on } satisfies ApiBody<'/api/v2/job_templates/{id}/' | '/api/v2/workflow_job_templates/{id}/', 'patch'>);
      await queryClient.invalidateQueries({ queryKey: [object.url] });
    } catch (err) {
      setEnabled(!on);
      setError(err);
    }
  };

  const label = (q: SurveyQuestion) => q.question_name || q.variable;

  return (
    <>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem alignItems="center">
            <Switch id="survey-enabled" label="Survey asked at launch" isChecked={enabled} onChange={(_e, on) => toggle(on)} isDisabled={!canEdit} />
          </ToolbarItem>
          {canEdit && (
            <>
              <ToolbarItem>
                <Button variant="secondary" onClick={() => setEditing('new')}>Add question</Button>
              </ToolbarItem>
              <ToolbarItem>
                <Button variant="primary" onClick={save} isDisabled={!dirty || saving} isLoading={saving}>Save survey</Button>
              </ToolbarItem>
            </>
          )}
        </ToolbarContent>
      </Toolbar>
      <ErrorAlert error={error} title="Not saved" />
      {saved && !dirty && <Alert variant="success" isInline isPlain title="Survey saved." />}
      {dirty && <Alert variant="info" isInline isPlain title="Unsaved changes: save the survey to keep them." />}
      {!canEdit && <Alert variant="info" isInline isPlain title="You may view this survey but not change it." />}
      {questions.length === 0 ? (
        <EmptyState titleText="No survey questions" headingLevel="h2">
          <EmptyStateBody>{canEdit ? 'Add a question to ask it at each launch.' : 'This template asks no questions.'}</EmptyStateBody>
        </EmptyState>
      ) : (
        <Table aria-label="Survey questions" variant="compact">
          <Thead>
            <Tr>
              <Th>Question</Th>
              <Th>Variable</Th>
              <Th>Type</Th>
              <Th className="drover-hide-narrow">Default</Th>
              {canEdit && <Th screenReaderText="Actions" />}
            </Tr>
          </Thead>
          <Tbody>
            {questions.map((q, index) => (
              <Tr key={q.variable} data-variable={q.variable}>
                <Td dataLabel="Question">
                  {label(q)}
                  {q.required && <span aria-label="required" style={{ color: 'var(--pf-t--global--text--color--status--danger--default)' }}> *</span>}
                </Td>
                <Td dataLabel="Variable"><span className="drover-mono">{q.variable}</span></Td>
                <Td dataLabel="Type">{typeLabel(q.type)}{choicesOf(q).length ? ` (${choicesOf(q).join(', ')})` : ''}</Td>
                <Td dataLabel="Default" className="drover-hide-narrow">{defaultText(q)}</Td>
                {canEdit && (
                  <Td isActionCell>
                    <Flex spaceItems={{ default: 'spaceItemsNone' }} flexWrap={{ default: 'nowrap' }}>
                      <FlexItem><Button variant="plain" aria-label={`Move ${label(q)} up`} icon={<ArrowUpIcon />} isDisabled={index === 0} onClick={() => move(index, -1)} /></FlexItem>
                      <FlexItem><Button variant="plain" aria-label={`Move ${label(q)} down`} icon={<ArrowDownIcon />} isDisabled={index === questions.length - 1} onClick={() => move(index, 1)} /></FlexItem>
                      <FlexItem><Button variant="plain" aria-label={`Edit ${label(q)}`} icon={<PencilAltIcon />} onClick={() => setEditing(index)} /></FlexItem>
                      <FlexItem><Button variant="plain" aria-label={`Delete ${label(q)}`} icon={<TrashIcon />} onClick={() => change(questions.filter((_, i) => i !== index))} /></FlexItem>
                    </Flex>
                  </Td>
                )}
              </Tr>
            ))}
          </Tbody>
        </Table>
      )}
      {editing !== null && (
        <QuestionForm
          question={editing === 'new' ? undefined : questions[editing]}
          otherVariables={questions.filter((_, i) => i !== editing).map((q) => q.variable)}
          onClose={() => setEditing(null)}
          onSave={(q) => {
            change(editing === 'new' ? [...questions, q] : questions.map((old, i) => (i === editing ? q : old)));
            setEditing(null);
          }}
        />
      )}
    </>
  );
}
