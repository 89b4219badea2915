import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ActionGroup, Button, Form, FormSection, Grid, GridItem } from '@patternfly/react-core';
import type { ApiBody, ResourceObject, FieldMeta } from '../../api/types';
import { useSave } from '../../hooks/use-save';
import type { ResourceConfig } from '../../resources/types';
import { FieldInput } from '../../components/FieldInput';
import { ErrorAlert } from '../../components/ErrorAlert';
import { plainFieldValues, WritableFields, sentFieldValues } from '../../components/WritableFields';
import { ConditionsEditor, conditionRows, type ConditionRow } from './ConditionsEditor';
import { ActionsEditor, actionRows, actionsOfRows, newActionRow, type ActionRow } from './ActionsEditor';
import { actionsOf, conditionsOf, rowMessages } from './event-rules-api';
import { withoutKey } from './keyed-rows';

/** Fields with an editor of their own below the plain ones. */
const OWN_FIELDS = new Set(['conditions', 'actions']);

/** Add or edit an event rule: the plain fields from OPTIONS, then its conditions and its actions. */
export default function EventRuleForm({ config, object }: { config: ResourceConfig; object?: ResourceObject<'event_rules'> }) {
  return (
    <WritableFields url={object ? object.url : `/api/v2/${config.key}/`} editing={!!object} refusal={object ? 'You may not change this event rule.' : 'You may not add event rules.'}>
      {(fields) => <FormBody config={config} object={object} fields={fields} />}
    </WritableFields>
  );
}

function FormBody({ config, object, fields }: { config: ResourceConfig; object?: ResourceObject<'event_rules'>; fields: Record<string, FieldMeta> }) {
  const [query] = useSearchParams();
  const navigate = useNavigate();
  const [values, setValues] = useState<Record<string, unknown>>(() => plainFieldValues(fields, object, query, OWN_FIELDS));
  const [conditions, setConditions] = useState<ConditionRow[]>(() => conditionRows(conditionsOf(object)));
  const [actions, setActions] = useState<ActionRow[]>(() => (object ? actionRows(actionsOf(object)) : [newActionRow()]));
  const [problems, setProblems] = useState<Record<number, string>>({});
  const { save, saving, failure, errors, answer } = useSave(config.key, object, (k) => k in fields);
  const conditionMessages = rowMessages(answer, 'conditions', 'Condition');
  const actionMessages = rowMessages(answer, 'actions', 'Action');

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const built = actionsOfRows(actions);
    setProblems(built.problems);
    if (!built.actions) return;
    const body: Record<string, unknown> = sentFieldValues(values, fields, !!object);
    body.conditions = conditions.map(withoutKey) satisfies ApiBody<'/api/v2/event_rules/', 'post'>['conditions'];
    body.actions = built.actions;
    void save(body);
  };

  const shown = Object.entries(fields).filter(([name]) => !OWN_FIELDS.has(name));
  return (
    <Form onSubmit={submit} aria-label={`${object ? 'Edit' : 'Add'} event rule`} noValidate>
      <ErrorAlert error={failure} title="Not saved" />
      <Grid hasGutter>
        {shown.map(([name, meta]) => (
          <GridItem key={name} span={12} md={6}>
            <FieldInput name={name} meta={meta} value={values[name]} onChange={(v) => setValues((old) => ({ ...old, [name]: v }))} error={errors[name]} />
          </GridItem>
        ))}
      </Grid>
      <FormSection title="Conditions" titleElement="h2">
        <p className="drover-subtle">
          Jinja2 expressions over <code>event</code> (the payload) and <code>headers</code> (names in lower case). The rule fires when every one holds.
        </p>
        <ConditionsEditor id="field-conditions" rows={conditions} onChange={setConditions} rowErrors={conditionMessages.byRow} error={conditionMessages.other.join(' ') || undefined} />
      </FormSection>
      <FormSection title="Actions" titleElement="h2">
        <p className="drover-subtle">What a firing does, in order.</p>
        <ActionsEditor
          id="field-actions"
          rows={actions}
          onChange={setActions}
          organization={values.organization}
          rowErrors={{ ...actionMessages.byRow, ...problems }}
          error={actionMessages.other.join(' ') || undefined}
        />
      </FormSection>
      <ActionGroup>
        <Button type="submit" variant="primary" isLoading={saving} isDisabled={saving}>Save</Button>
        <Button variant="link" onClick={() => navigate(-1)}>Cancel</Button>
      </ActionGroup>
    </Form>
  );
}
