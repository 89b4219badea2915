import { useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router';
import { ActionGroup, Alert, Button, Form, FormGroup, FormSection, Label, PageSection, TextArea, Title } from '@patternfly/react-core';
import { http } from '../../api/client';
import type { ApiAnswer, ApiBody, ResourceObject } from '../../api/types';
import { useObject } from '../../hooks/api-hooks';
import { ErrorAlert } from '../../components/ErrorAlert';
import { Loading } from '../../components/Loading';
import { fieldHelp } from '../../components/field-help';
import { SurveyFields } from '../templates/survey/SurveyFields';
import { useDynamicChoices } from '../templates/survey/use-dynamic-choices';
import { initialAnswer, surveyProblems, surveyValues } from '../templates/survey/survey-types';
import { CatalogIcon } from './CatalogIcon';
import { answerKey, formSurveys, placeSubmitErrors, type FormSurvey, type LaunchData } from './request-form';
import './portal.css';

type Item = ResourceObject<'service_catalog_items'>;
type SubmitBody = ApiBody<'/api/v2/service_catalog_items/{id}/submit/', 'post'>;
type Created = ApiAnswer<'/api/v2/service_catalog_items/{id}/submit/', 'post'>;

const MAX_JUSTIFICATION = 4096;

/** /catalog/<id>: a catalog item's request form, generated from the surveys it answers. */
export default function RequestFormPage() {
  const { id = '' } = useParams();
  const url = `/api/v2/service_catalog_items/${Number(id)}/`;
  const item = useObject<Item>(url);
  const launch = useObject<LaunchData>(`${url}launch_data/`);
  const may = useObject<ApiAnswer<'/api/v2/service_catalog_items/{id}/submit/'>>(`${url}submit/`);
  const error = item.error ?? launch.error ?? may.error;
  if (error) return <PageSection><ErrorAlert error={error} /></PageSection>;
  if (!item.data || !launch.data || !may.data) return <Loading />;
  return <RequestForm item={item.data} launch={launch.data} canSubmit={may.data.can_submit} />;
}

const templateUrl = (item: Item) => (item.workflow_job_template ? `/api/v2/workflow_job_templates/${item.workflow_job_template}/` : `/api/v2/job_templates/${item.job_template}/`);

function RequestForm({ item, launch, canSubmit }: { item: Item; launch: LaunchData; canSubmit: boolean }) {
  const navigate = useNavigate();
  const surveys = formSurveys(launch);
  const [answers, setAnswers] = useState<Record<string, Record<string, unknown>>>(() =>
    Object.fromEntries(surveys.map((s) => [s.node, Object.fromEntries(s.spec.map((q) => [q.variable, initialAnswer(q)]))])),
  );
  const [justification, setJustification] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [rest, setRest] = useState<string[]>([]);
  const [sending, setSending] = useState(false);
  const own = surveys.find((s) => !s.node);
  // Node templates' dynamic choices are not offered: their questions show their static choices.
  const dynamic = useDynamicChoices(templateUrl(item), own?.spec ?? [], { staticWhenRefused: true });

  const answer = (survey: FormSurvey, variable: string, value: unknown) => {
    setAnswers((old) => ({ ...old, [survey.node]: { ...old[survey.node], [variable]: value } }));
    setErrors(({ [answerKey(survey, variable)]: _gone, ...others }) => others);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // The template's own survey is checked here as the API would; a node's answers also depend on
    // the node's saved variables, so only the API checks them.
    const problems = own ? Object.fromEntries(Object.entries(surveyProblems(own.spec, answers[''])).map(([v, m]) => [answerKey(own, v), m])) : {};
    if (justification.length > MAX_JUSTIFICATION) problems.justification = `At most ${MAX_JUSTIFICATION} characters.`;
    setErrors(problems);
    setRest([]);
    setFailure(null);
    if (Object.keys(problems).length) return;
    const body: SubmitBody = { extra_vars: own ? surveyValues(own.spec, answers['']) : {}, justification };
    if (launch.is_workflow) body.node_survey_data = Object.fromEntries(surveys.filter((s) => s.node).map((s) => [s.node, surveyValues(s.spec, answers[s.node])]));
    setSending(true);
    try {
      const created = await http.post<Created>(`${item.url}submit/`, body);
      navigate('/my_requests', { state: { submitted: { id: created.id, item: item.name, status: created.status } } });
    } catch (err) {
      const placed = placeSubmitErrors(err, surveys);
      setErrors(placed.errors);
      setRest(placed.rest);
      if (!Object.keys(placed.errors).length && !placed.rest.length) setFailure(err);
    } finally {
      setSending(false);
    }
  };

  return (
    <>
      <PageSection>
        <Title headingLevel="h1" className="drover-catalog-card-title">
          <CatalogIcon icon={item.icon} size={28} />
          <span>{`Request ${item.name}`}</span>
        </Title>
        {item.description && <p className="drover-catalog-description">{item.description}</p>}
        {item.requires_approval && <Label color="orange" isCompact>Requires approval: the request waits for an approver before it runs.</Label>}
      </PageSection>
      <PageSection>
        {!canSubmit ? (
          <Alert variant="warning" isInline title="You may not request this item.">
            {item.enabled ? 'Only members of its organization request it.' : 'The item is disabled.'}
          </Alert>
        ) : (
          <Form onSubmit={submit} aria-label={`Request ${item.name}`} noValidate>
            <ErrorAlert error={failure} title="Not requested" />
            {rest.length > 0 && (
              <Alert variant="danger" isInline title="Not requested">
                {rest.map((m) => <div key={m}>{m}</div>)}
              </Alert>
            )}
            {surveys.length === 0 && <p>This item asks no questions.</p>}
            {surveys.map((survey) => {
              const shownErrors = Object.fromEntries(survey.spec.filter((q) => errors[answerKey(survey, q.variable)]).map((q) => [q.variable, errors[answerKey(survey, q.variable)]]));
              const fields = (
                <SurveyFields
                  spec={survey.spec}
                  answers={answers[survey.node]}
                  onChange={(variable, value) => answer(survey, variable, value)}
                  errors={shownErrors}
                  dynamic={survey.node ? undefined : dynamic}
                  idPrefix={survey.node ? `node-${survey.node}` : 'survey'}
                />
              );
              return survey.node ? (
                <FormSection key={survey.node} title={`Step: ${survey.title}`} titleElement="h2">{fields}</FormSection>
              ) : (
                <FormSection key="" title={launch.is_workflow && surveys.length > 1 ? 'Workflow' : undefined} titleElement="h2">{fields}</FormSection>
              );
            })}
            <FormGroup label="Justification" fieldId="request-justification">
              <TextArea id="request-justification" value={justification} onChange={(_e, v) => setJustification(v)} validated={errors.justification ? 'error' : 'default'} aria-describedby="request-justification-help" resizeOrientation="vertical" />
              {fieldHelp('request-justification', errors.justification, item.requires_approval ? 'Why you need it, for the approvers.' : 'Why you need it.')}
            </FormGroup>
            <ActionGroup>
              <Button type="submit" variant="primary" isLoading={sending} isDisabled={sending}>Submit request</Button>
              <Button variant="link" onClick={() => navigate('/catalog')}>Cancel</Button>
            </ActionGroup>
          </Form>
        )}
      </PageSection>
    </>
  );
}
