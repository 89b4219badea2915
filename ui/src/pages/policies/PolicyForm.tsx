import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ActionGroup, Button, Form, FormGroup, FormHelperText, Grid, GridItem, HelperText, HelperTextItem } from '@patternfly/react-core';
import type { ApiBody, ResourceObject, FieldMeta } from '../../api/types';
import { useSave } from '../../hooks/use-save';
import type { ResourceConfig } from '../../resources/types';
import { FieldInput } from '../../components/FieldInput';
import { ErrorAlert } from '../../components/ErrorAlert';
import { plainFieldValues, WritableFields, sentFieldValues } from '../../components/WritableFields';
import { RegoEditor } from './RegoEditor';

/** The Rego module has an editor of its own below the plain fields. */
const OWN_FIELDS = new Set(['rego_module']);
/** A first module, in the organization's namespace (drover.org_<id>) when one is chosen. */
const starterFor = (organization: unknown) =>
  `package ${typeof organization === 'number' ? `drover.org_${organization}` : 'drover'}.launch\n\nimport rego.v1\n\n# Each message denies the launch.\ndeny contains msg if {\n  input.extra_vars.environment == "production"\n  not input.user.is_superuser\n  msg := "Only administrators launch to production."\n}\n`;

/** Add or edit a policy: the plain fields from OPTIONS, then its Rego with highlighting. */
export default function PolicyForm({ config, object }: { config: ResourceConfig; object?: ResourceObject<'policies'> }) {
  return (
    <WritableFields url={object ? object.url : `/api/v2/${config.key}/`} editing={!!object} refusal={object ? 'You may not change this policy.' : 'You may not add policies.'}>
      {(fields) => <FormBody config={config} object={object} fields={fields} />}
    </WritableFields>
  );
}

function FormBody({ config, object, fields }: { config: ResourceConfig; object?: ResourceObject<'policies'>; fields: Record<string, FieldMeta> }) {
  const [query] = useSearchParams();
  const navigate = useNavigate();
  const [values, setValues] = useState<Record<string, unknown>>(() => plainFieldValues(fields, object, query, OWN_FIELDS));
  const [rego, setRego] = useState<string>(() => (object ? String(object.rego_module ?? '') : starterFor(values.organization)));
  const { save, saving, failure, errors } = useSave(config.key, object, (k) => k in fields);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body: Record<string, unknown> = sentFieldValues(values, fields, !!object);
    body.rego_module = rego satisfies ApiBody<'/api/v2/policies/', 'post'>['rego_module'];
    void save(body);
  };

  const change = (name: string, value: unknown) => {
    // The untouched starter follows the organization into its namespace.
    if (name === 'organization' && rego === starterFor(values.organization)) setRego(starterFor(value));
    setValues((old) => ({ ...old, [name]: value }));
  };

  const shown = Object.entries(fields).filter(([name]) => !OWN_FIELDS.has(name));
  const regoError = errors.rego_module;
  return (
    <Form onSubmit={submit} aria-label={`${object ? 'Edit' : 'Add'} policy`} noValidate>
      <ErrorAlert error={failure} title="Not saved" />
      <Grid hasGutter>
        {shown.map(([name, meta]) => (
          <GridItem key={name} span={12} md={6}>
            <FieldInput name={name} meta={meta} value={values[name]} onChange={(v) => change(name, v)} error={errors[name]} />
          </GridItem>
        ))}
      </Grid>
      <FormGroup label="Rego module" isRequired fieldId="field-rego_module">
        <RegoEditor id="field-rego_module" value={rego} onChange={setRego} invalid={!!regoError} />
        <FormHelperText>
          <HelperText>
            <HelperTextItem variant={regoError ? 'error' : 'default'}>
              {regoError ?? "Uploaded to the policy engine when saved; the package path above names what launches evaluate. An organization's packages live under drover.org_<organization id>; http.send, net.lookup_ip_addr and opa.runtime are for superusers' policies."}
            </HelperTextItem>
          </HelperText>
        </FormHelperText>
      </FormGroup>
      <ActionGroup>
        <Button type="submit" variant="primary" isLoading={saving} isDisabled={saving}>Save</Button>
        <Button variant="link" onClick={() => navigate(-1)}>Cancel</Button>
      </ActionGroup>
    </Form>
  );
}
