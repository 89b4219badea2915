import { useMemo, useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ActionGroup, Button, Form, Grid, GridItem } from '@patternfly/react-core';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../api/client';
import { ApiError } from '../api/errors';
import type { AnyResource, FieldMeta } from '../api/types';
import type { ResourceConfig } from '../resources/types';
import { FieldInput, INVALID } from './FieldInput';
import { ErrorAlert } from './ErrorAlert';
import { WritableFields, sentFieldValues } from './WritableFields';
import { objectUrl } from '../api/object-url';

const WIDE_TYPES = new Set(['json']);

/**
 * The add and edit form of a resource, from the fields OPTIONS offers (POST to add, PUT to edit).
 * The API's validation messages are shown under the field they name.
 */
export function ResourceForm<O extends AnyResource = AnyResource>({ config, object, hidden = [], extra, onSaved, createUrl, initial }: {
  config: ResourceConfig;
  object?: O;
  hidden?: string[];
  /** Where a new object is posted (default: the resource's list), e.g. an inventory's ad_hoc_commands/. */
  createUrl?: string;
  /** Values a new object starts with, besides the defaults and the page's query. */
  initial?: Record<string, unknown>;
  /** Fields the page renders itself (typed inputs), given the values and a setter. */
  extra?: (values: Record<string, unknown>, set: (name: string, value: unknown) => void, errors: Record<string, string>) => React.ReactNode;
  onSaved?: (saved: O) => void;
}) {
  const url = object ? objectUrl(object) : createUrl ?? `/api/v2/${config.key}/`;
  return (
    <WritableFields url={url} editing={!!object} refusal={object ? 'You may not change this object.' : `You may not add ${config.label.toLowerCase()}.`}>
      {(fields) => <FormBody config={config} object={object} url={url} initial={initial} fields={fields} hidden={[...(config.hiddenFormFields ?? []), ...hidden]} extra={extra} onSaved={onSaved} />}
    </WritableFields>
  );
}

function initialValues(fields: Record<string, FieldMeta>, object: AnyResource | undefined, query: URLSearchParams, initial: Record<string, unknown> = {}): Record<string, unknown> {
  const values: Record<string, unknown> = { ...initial };
  for (const [name, meta] of Object.entries(fields)) {
    if (object) values[name] = object[name];
    else if (query.has(name)) values[name] = meta.type === 'id' || meta.type === 'integer' ? Number(query.get(name)) : query.get(name);
    else if (meta.default !== undefined && !(name in values)) values[name] = meta.default;
  }
  return values;
}

function FormBody<O extends AnyResource>({ config, object, url, initial, fields, hidden, extra, onSaved }: {
  config: ResourceConfig;
  object?: O;
  url: string;
  initial?: Record<string, unknown>;
  fields: Record<string, FieldMeta>;
  hidden: string[];
  extra?: (values: Record<string, unknown>, set: (name: string, value: unknown) => void, errors: Record<string, string>) => React.ReactNode;
  onSaved?: (saved: O) => void;
}) {
  const [query] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [values, setValues] = useState(() => initialValues(fields, object, query, initial));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const set = (name: string, value: unknown) => setValues((v) => ({ ...v, [name]: value }));
  const shown = useMemo(() => Object.entries(fields).filter(([name]) => !hidden.includes(name)), [fields, hidden]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const invalid = Object.entries(values).filter(([, v]) => v === INVALID).map(([k]) => k);
    if (invalid.length) {
      setErrors(Object.fromEntries(invalid.map((k) => [k, 'Fix the syntax before saving.'])));
      return;
    }
    setSaving(true);
    setFailure(null);
    try {
      const body = sentFieldValues(values, fields, !!object);
      const saved = object ? await http.put<O>(objectUrl(object), body) : await http.post<O>(url, body);
      await queryClient.invalidateQueries();
      if (onSaved) onSaved(saved);
      else navigate(`/${config.key}/${saved.id}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) {
        setErrors(err.fieldErrors);
        const unplaced = Object.keys(err.fieldErrors).filter((k) => !fields[k] || hidden.includes(k));
        if (unplaced.length || !Object.keys(err.fieldErrors).length) setFailure(err);
      } else setFailure(err);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Form onSubmit={submit} aria-label={`${object ? 'Edit' : 'Add'} ${config.singular.toLowerCase()}`} noValidate>
      <ErrorAlert error={failure} title="Not saved" />
      <Grid hasGutter md={6}>
        {shown.map(([name, meta]) => (
          <GridItem key={name} span={12} md={WIDE_TYPES.has(meta.type) ? 12 : 6}>
            <FieldInput name={name} meta={meta} value={values[name]} onChange={(v) => set(name, v)} error={errors[name]} values={values} />
          </GridItem>
        ))}
      </Grid>
      {extra?.(values, set, errors)}
      <ActionGroup>
        <Button type="submit" variant="primary" isLoading={saving} isDisabled={saving}>Save</Button>
        <Button variant="link" onClick={() => navigate(-1)}>Cancel</Button>
      </ActionGroup>
    </Form>
  );
}
