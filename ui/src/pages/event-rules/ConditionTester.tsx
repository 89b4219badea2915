import { useState, type FormEvent } from 'react';
import { ActionGroup, Alert, Button, Form, FormGroup, FormSection, Grid, GridItem, Label, TextArea, Title } from '@patternfly/react-core';
import { ApiError } from '../../api/errors';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { fieldHelp } from '../../components/field-help';
import { ConditionsEditor, conditionRows, type ConditionRow } from './ConditionsEditor';
import { ConditionResultsTable } from './ResultTables';
import { conditionsOf, parseJsonObject, rowMessages, testRule, type EventRule, type TestAnswer } from './event-rules-api';
import { withoutKey } from './keyed-rows';

const SAMPLE_PAYLOAD = '{\n  \n}';
/** Fields whose 400 messages show next to their input. */
const PLACED = new Set(['payload', 'headers', 'conditions']);

/** Why a rule whose conditions all hold would still not fire. */
const heldBack = (rule: EventRule) => (rule.enabled ? `it fired less than ${String(rule.throttle_seconds)} seconds ago (its throttle)` : 'the rule is disabled');

/**
 * A dry run of the rule: a payload (and headers) typed as JSON, the rule's conditions as a start to
 * edit, and each condition's result. The API launches nothing; nothing here is saved.
 */
export default function ConditionTester({ object }: { object: ResourceObject<'event_rules'> }) {
  const [payload, setPayload] = useState(SAMPLE_PAYLOAD);
  const [headers, setHeaders] = useState('');
  const [conditions, setConditions] = useState<ConditionRow[]>(() => conditionRows(conditionsOf(object)));
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [answer, setAnswer] = useState<TestAnswer | null>(null);
  const [busy, setBusy] = useState(false);

  if (!object.summary_fields?.user_capabilities?.edit) {
    return <Alert variant="info" isInline title="Only the organization's admins may test this rule." />;
  }

  const run = async (e: FormEvent) => {
    e.preventDefault();
    const parsedPayload = parseJsonObject(payload, 'The payload');
    const parsedHeaders = headers.trim() ? parseJsonObject(headers, 'The headers') : { value: undefined };
    const found: Record<string, string> = {};
    if (parsedPayload.problem) found.payload = parsedPayload.problem;
    if (parsedHeaders.problem) found.headers = parsedHeaders.problem;
    setProblems(found);
    setFailure(null);
    if (Object.keys(found).length) return;
    setBusy(true);
    try {
      setAnswer(await testRule(object, { payload: parsedPayload.value!, ...(parsedHeaders.value && { headers: parsedHeaders.value }), conditions: conditions.map(withoutKey) }));
    } catch (err) {
      setAnswer(null);
      setFailure(err);
      if (err instanceof ApiError && err.status === 400) setProblems(err.fieldErrors);
    } finally {
      setBusy(false);
    }
  };

  const conditionMessages = rowMessages(failure, 'conditions', 'Condition');
  const placed = failure instanceof ApiError && failure.status === 400 && Object.keys(failure.fieldErrors).length > 0 && Object.keys(failure.fieldErrors).every((k) => PLACED.has(k));
  const unplaced = placed ? null : failure;
  return (
    <>
      <Form onSubmit={run} aria-label="Condition tester" noValidate>
        <ErrorAlert error={unplaced} title="Not tested" />
        <Grid hasGutter md={6}>
          <GridItem>
            <FormGroup label="Payload" fieldId="tester-payload" isRequired>
              <TextArea id="tester-payload" className="drover-mono" value={payload} onChange={(_e, v) => setPayload(v)} rows={10} resizeOrientation="vertical" spellCheck={false} validated={problems.payload ? 'error' : 'default'} aria-describedby="tester-payload-help" />
              {fieldHelp('tester-payload', problems.payload, 'The event as its sender would post it: a JSON object, seen by conditions as event.')}
            </FormGroup>
          </GridItem>
          <GridItem>
            <FormGroup label="Headers" fieldId="tester-headers">
              <TextArea id="tester-headers" className="drover-mono" value={headers} onChange={(_e, v) => setHeaders(v)} rows={10} resizeOrientation="vertical" spellCheck={false} placeholder={'{"x-svc-event": "alert"}'} validated={problems.headers ? 'error' : 'default'} aria-describedby="tester-headers-help" />
              {fieldHelp('tester-headers', problems.headers, 'Optional: a JSON object of header names and values, seen as headers (names in lower case).')}
            </FormGroup>
          </GridItem>
        </Grid>
        <FormSection title="Conditions to test" titleElement="h2">
          <p className="drover-subtle">The rule's saved conditions to start with; changes here are tried, not saved.</p>
          <ConditionsEditor id="tester-conditions" rows={conditions} onChange={setConditions} rowErrors={conditionMessages.byRow} error={conditionMessages.other.join(' ') || undefined} />
        </FormSection>
        <ActionGroup>
          <Button type="submit" variant="primary" isLoading={busy} isDisabled={busy}>Test</Button>
          <Button variant="link" onClick={() => setConditions(conditionRows(conditionsOf(object)))}>Reset conditions</Button>
        </ActionGroup>
      </Form>
      {answer && <TestResult rule={object} answer={answer} />}
    </>
  );
}

function TestResult({ rule, answer }: { rule: EventRule; answer: TestAnswer }) {
  return (
    <section aria-label="Test result" style={{ marginTop: '1.5rem' }} data-would-fire={String(answer.would_fire)}>
      <Title headingLevel="h2" size="lg" style={{ marginBottom: '0.5rem' }}>
        Result{' '}
        {answer.would_fire ? <Label color="green" data-verdict>Would fire</Label> : <Label color="grey" data-verdict>Would not fire</Label>}
      </Title>
      <p className="drover-subtle" style={{ marginBottom: '0.5rem' }}>
        {answer.would_fire
          ? `Every condition holds: the rule would run its ${answer.actions.length} action${answer.actions.length === 1 ? '' : 's'}.`
          : answer.matched
            ? `Every condition holds, but ${heldBack(rule)}.`
            : 'Not every condition holds.'}
      </p>
      <ConditionResultsTable results={answer.condition_results} label="Condition results" />
    </section>
  );
}
