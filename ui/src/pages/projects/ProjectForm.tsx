import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { ActionGroup, Button, Form, FormSection, Grid, GridItem } from '@patternfly/react-core';
import { http, withQuery, type Page } from '../../api/client';
import type { FieldMeta, ResourceObject } from '../../api/types';
import type { ResourceConfig } from '../../resources/types';
import { useSave } from '../../hooks/use-save';
import { FieldInput } from '../../components/FieldInput';
import { ErrorAlert } from '../../components/ErrorAlert';
import { plainFieldValues, sentFieldValues, WritableFields } from '../../components/WritableFields';
import { LocalPathSelect } from './LocalPathSelect';
import { fieldsOfType, PROJECT_LABELS, TYPED_FIELDS } from './project-layout';

type Project = ResourceObject<'projects'>;

/** Add or edit a project: the common fields, then only those of its source control type, with AWX's labels. */
export default function ProjectForm({ config, object }: { config: ResourceConfig; object?: Project }) {
  return (
    <WritableFields url={object ? object.url : `/api/v2/${config.key}/`} editing={!!object} refusal={object ? 'You may not change this project.' : 'You may not add projects.'}>
      {(fields) => <FormBody config={config} object={object} fields={fields} />}
    </WritableFields>
  );
}

function FormBody({ config, object, fields }: { config: ResourceConfig; object?: Project; fields: Record<string, FieldMeta> }) {
  const [query] = useSearchParams();
  const navigate = useNavigate();
  const [values, setValues] = useState<Record<string, unknown>>(() => plainFieldValues(fields, object, query, new Set()));
  const set = (name: string, value: unknown) => setValues((v) => ({ ...v, [name]: value }));
  const typeFields = fieldsOfType(values.scm_type).filter((n) => n in fields);
  const shown = (n: string) => !TYPED_FIELDS.has(n) || typeFields.includes(n);
  const { save, saving, failure, errors } = useSave(config.key, object, (k) => k in fields && shown(k));
  // Source control credentials only (AWX's lookup of the Source Control type).
  const scmType = useQuery({
    queryKey: ['/api/v2/credential_types/', 'scm'],
    queryFn: () => http.get<Page<ResourceObject<'credential_types'>>>(withQuery('/api/v2/credential_types/', { namespace: 'scm' })),
    staleTime: 60_000,
  });
  const scmTypeId = scmType.data?.results[0]?.id;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const sent = Object.fromEntries(Object.entries(values).filter(([k]) => shown(k) && !(k === 'scm_update_cache_timeout' && !values.scm_update_on_launch)));
    void save(sentFieldValues(sent, fields, !!object));
  };

  const input = (name: string) => {
    if (name === 'local_path') return <LocalPathSelect meta={fields.local_path} value={values.local_path} onChange={(v) => set('local_path', v)} error={errors.local_path} />;
    return (
      <FieldInput
        name={name}
        label={PROJECT_LABELS[name]}
        meta={fields[name]}
        value={values[name]}
        onChange={(v) => set(name, v)}
        error={errors[name]}
        lookupQuery={name === 'credential' && scmTypeId ? { credential_type: scmTypeId } : undefined}
      />
    );
  };
  const common = Object.keys(fields).filter((n) => !TYPED_FIELDS.has(n));
  const details = typeFields.filter((n) => fields[n].type !== 'boolean' && (n !== 'scm_update_cache_timeout' || !!values.scm_update_on_launch));
  const options = typeFields.filter((n) => fields[n].type === 'boolean');
  const typeName = fields.scm_type?.choices?.find(([v]) => v === values.scm_type)?.[1] ?? 'Source';

  return (
    <Form onSubmit={submit} aria-label={`${object ? 'Edit' : 'Add'} project`} noValidate>
      <ErrorAlert error={failure} title="Not saved" />
      <Grid hasGutter md={6}>
        {common.map((name) => (
          <GridItem key={name} span={12} md={6}>
            {input(name)}
          </GridItem>
        ))}
      </Grid>
      {(details.length > 0 || options.length > 0) && (
        <FormSection title={`${typeName} details`} titleElement="h2">
          <Grid hasGutter md={6}>
            {details.map((name) => (
              <GridItem key={name} span={12} md={6}>
                {input(name)}
              </GridItem>
            ))}
            {options.map((name) => (
              <GridItem key={name} span={12} md={6}>
                {input(name)}
              </GridItem>
            ))}
          </Grid>
        </FormSection>
      )}
      <ActionGroup>
        <Button type="submit" variant="primary" isLoading={saving} isDisabled={saving}>Save</Button>
        <Button variant="link" onClick={() => navigate(-1)}>Cancel</Button>
      </ActionGroup>
    </Form>
  );
}
