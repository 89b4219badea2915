import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ActionGroup, Alert, Button, Form, Grid, GridItem } from '@patternfly/react-core';
import type { ApiBody, ResourceObject, FieldMeta } from '../../api/types';
import { nestedErrors } from '../../api/validation';
import { useObject } from '../../hooks/api-hooks';
import { useSave } from '../../hooks/use-save';
import type { ResourceConfig } from '../../resources/types';
import { FieldInput } from '../../components/FieldInput';
import { ErrorAlert } from '../../components/ErrorAlert';
import { plainFieldValues, WritableFields, sentFieldValues } from '../../components/WritableFields';
import { CredentialInputs, type TypeInputs } from './CredentialInputs';

/** Rendered by CredentialInputs, not as a plain field. */
const TYPED_INPUTS = new Set(['inputs']);

/** Add or edit a credential: its own fields, then the typed inputs of its credential type. */
export default function CredentialForm({ config, object }: { config: ResourceConfig; object?: ResourceObject<'credentials'> }) {
  return (
    <WritableFields url={object ? object.url : `/api/v2/${config.key}/`} editing={!!object} refusal={object ? 'You may not change this credential.' : 'You may not add credentials.'}>
      {(fields) => <CredentialFormBody config={config} object={object} fields={fields} />}
    </WritableFields>
  );
}


function CredentialFormBody({ config, object, fields }: { config: ResourceConfig; object?: ResourceObject<'credentials'>; fields: Record<string, FieldMeta> }) {
  const [query] = useSearchParams();
  const navigate = useNavigate();
  const storedInputs = (object?.inputs ?? {}) as Record<string, unknown>;
  const [values, setValues] = useState(() => plainFieldValues(fields, object, query, TYPED_INPUTS));
  const [inputs, setInputs] = useState<Record<string, unknown>>(storedInputs);
  const typeId = values.credential_type as number | null | undefined;
  const type = useObject(typeId ? `/api/v2/credential_types/${typeId}/` : undefined);
  const { save, saving, failure, errors, answer } = useSave(config.key, object, (k) => k in fields);
  const inputErrors = nestedErrors(answer, 'inputs');

  const shown = Object.entries(fields).filter(([name]) => name !== 'inputs' && !(object && (name === 'user' || name === 'team')));
  const set = (name: string, value: unknown) => {
    setValues((v) => ({ ...v, [name]: value }));
    // Another type has other inputs; back on the saved type the saved inputs return.
    if (name === 'credential_type') setInputs(value === object?.credential_type ? storedInputs : {});
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const schema = (type.data?.inputs ?? {}) as TypeInputs;
    const sent: Record<string, unknown> = {};
    for (const field of schema.fields ?? []) {
      const value = inputs[field.id] ?? field.default;
      if (value !== undefined) sent[field.id] = value;
    }
    const body = sentFieldValues(values, fields, !!object);
    void save({ ...body, inputs: sent satisfies ApiBody<'/api/v2/credentials/', 'post'>['inputs'] });
  };

  return (
    <Form onSubmit={submit} aria-label={`${object ? 'Edit' : 'Add'} credential`} noValidate>
      <ErrorAlert error={failure} title="Not saved" />
      {inputErrors.other && <Alert variant="danger" isInline title="Inputs not accepted">{inputErrors.other}</Alert>}
      <Grid hasGutter>
        {shown.map(([name, meta]) => (
          <GridItem key={name} span={12} md={6}>
            <FieldInput name={name} meta={meta} value={values[name]} onChange={(v) => set(name, v)} error={errors[name]} />
          </GridItem>
        ))}
      </Grid>
      {type.error && <ErrorAlert error={type.error} title="The credential type could not be read" />}
      {type.data && (
        <CredentialInputs
          key={type.data.id}
          typeName={String(type.data.name)}
          schema={(type.data.inputs ?? {}) as TypeInputs}
          values={inputs}
          stored={typeId === object?.credential_type ? storedInputs : {}}
          onChange={(id, value) => setInputs((v) => ({ ...v, [id]: value }))}
          errors={inputErrors.byName}
        />
      )}
      <ActionGroup>
        <Button type="submit" variant="primary" isLoading={saving} isDisabled={saving}>Save</Button>
        <Button variant="link" onClick={() => navigate(-1)}>Cancel</Button>
      </ActionGroup>
    </Form>
  );
}
