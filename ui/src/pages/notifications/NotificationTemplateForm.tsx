import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ActionGroup, Alert, Button, Form, Grid, GridItem } from '@patternfly/react-core';
import { ApiError } from '../../api/errors';
import type { ApiBody, ResourceObject, FieldMeta } from '../../api/types';
import { useSave } from '../../hooks/use-save';
import type { ResourceConfig } from '../../resources/types';
import { FieldInput } from '../../components/FieldInput';
import { ErrorAlert } from '../../components/ErrorAlert';
import { plainFieldValues, WritableFields, sentFieldValues } from '../../components/WritableFields';
import { ConfigurationFields, configurationOf, draftOf, placeMessages, type ConfigDraft, type ConfigFieldMeta } from './ConfigurationFields';
import { CustomMessages, hasCustomMessages, type Messages } from './CustomMessages';

const OWN_FIELDS = new Set(['notification_configuration', 'messages']);
const NO_MESSAGES = { started: null, success: null, error: null, workflow_approval: null };

/** Add or edit a notification template: its kind, then that kind's settings, then optional messages. */
export default function NotificationTemplateForm({ config, object }: { config: ResourceConfig; object?: ResourceObject<'notification_templates'> }) {
  return (
    <WritableFields url={object ? object.url : `/api/v2/${config.key}/`} editing={!!object} refusal={object ? 'You may not change this notification template.' : 'You may not add notification templates.'}>
      {(fields) => <FormBody config={config} object={object} fields={fields} />}
    </WritableFields>
  );
}

function FormBody({ config, object, fields }: { config: ResourceConfig; object?: ResourceObject<'notification_templates'>; fields: Record<string, FieldMeta> }) {
  const [query] = useSearchParams();
  const navigate = useNavigate();
  const kinds = fields.notification_configuration as unknown as Record<string, Record<string, ConfigFieldMeta> | unknown>;
  const [values, setValues] = useState<Record<string, unknown>>(() => plainFieldValues(fields, object, query, OWN_FIELDS));
  const type = String(values.notification_type ?? '');
  const meta = (type && typeof kinds?.[type] === 'object' ? kinds[type] : {}) as Record<string, ConfigFieldMeta>;
  const storedConfig = (type === object?.notification_type ? object?.notification_configuration ?? {} : {}) as Record<string, unknown>;
  const [draft, setDraft] = useState<ConfigDraft>(() => draftOf(meta, storedConfig));
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [customize, setCustomize] = useState(() => hasCustomMessages((object?.messages ?? null) as Messages));
  const [messages, setMessages] = useState<Messages>((object?.messages ?? null) as Messages);
  const { save, saving, failure, errors, answer } = useSave(config.key, object, (k) => k in fields);

  const configMessages = answer instanceof ApiError && answer.status === 400 ? ([] as unknown[]).concat((answer.body as Record<string, unknown>)?.notification_configuration ?? []).map(String) : [];
  const placed = placeMessages(meta, configMessages);

  const set = (name: string, value: unknown) => {
    setValues((v) => ({ ...v, [name]: value }));
    if (name === 'notification_type') {
      const nextMeta = (typeof kinds?.[String(value)] === 'object' ? kinds[String(value)] : {}) as Record<string, ConfigFieldMeta>;
      setDraft(draftOf(nextMeta, value === object?.notification_type ? (object?.notification_configuration as Record<string, unknown>) : undefined));
      setProblems({});
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const built = configurationOf(meta, draft);
    setProblems(built.problems);
    if (Object.keys(built.problems).length) return;
    const body: Record<string, unknown> = sentFieldValues(values, fields, !!object);
    body.notification_configuration = built.value satisfies ApiBody<'/api/v2/notification_templates/', 'post'>['notification_configuration'];
    if (customize) body.messages = messages ?? NO_MESSAGES;
    else if (hasCustomMessages((object?.messages ?? null) as Messages)) body.messages = NO_MESSAGES;
    void save(body);
  };

  const shown = Object.entries(fields).filter(([name]) => !OWN_FIELDS.has(name));
  return (
    <Form onSubmit={submit} aria-label={`${object ? 'Edit' : 'Add'} notification template`} noValidate>
      <ErrorAlert error={failure} title="Not saved" />
      {placed.other.length > 0 && <Alert variant="danger" isInline title="Settings not accepted">{placed.other.join(' ')}</Alert>}
      <Grid hasGutter>
        {shown.map(([name, fieldMeta]) => (
          <GridItem key={name} span={12} md={6}>
            <FieldInput name={name} meta={fieldMeta} value={values[name]} onChange={(v) => set(name, v)} error={errors[name]} />
          </GridItem>
        ))}
      </Grid>
      {type && <ConfigurationFields key={type} meta={meta} draft={draft} stored={storedConfig} onChange={(name, v) => setDraft((d) => ({ ...d, [name]: v }))} errors={{ ...placed.byName, ...problems }} />}
      <CustomMessages enabled={customize} onEnable={setCustomize} messages={messages} onChange={setMessages} error={errors.messages} />
      <ActionGroup>
        <Button type="submit" variant="primary" isLoading={saving} isDisabled={saving}>Save</Button>
        <Button variant="link" onClick={() => navigate(-1)}>Cancel</Button>
      </ActionGroup>
    </Form>
  );
}
