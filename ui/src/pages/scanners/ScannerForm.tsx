import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ActionGroup, Button, Form, FormGroup, FormHelperText, Grid, GridItem, HelperText, HelperTextItem, TextArea } from '@patternfly/react-core';
import type { FieldMeta, FieldOf, ResourceObject } from '../../api/types';
import { useSave } from '../../hooks/use-save';
import type { ResourceConfig } from '../../resources/types';
import { FieldInput } from '../../components/FieldInput';
import { ErrorAlert } from '../../components/ErrorAlert';
import { plainFieldValues, WritableFields, sentFieldValues } from '../../components/WritableFields';

/** The tool's configuration has a monospace editor of its own below the plain fields. */
const OWN_FIELDS = new Set(['config']);

/** An example of each tool's configuration file, shown while the text is empty. */
const EXAMPLES: Record<FieldOf<'scanners', 'tool'>, string> = {
  'ansible-lint': 'skip_list:\n  - yaml[line-length]\nwarn_list:\n  - experimental',
  yamllint: 'extends: default\nrules:\n  line-length:\n    max: 160',
  checkov: 'skip-check:\n  - CKV_ANSIBLE_1',
};

/** What each target of applies_to is, in words (OPTIONS labels them by their values). */
const TARGET_LABELS: Record<NonNullable<FieldOf<'scanners', 'applies_to'>>[number], string> = {
  job_template: 'Jobs launched from their template',
  workflow_job_template_node: 'Jobs a workflow node launches',
  ad_hoc_command: 'Ad hoc commands',
};

const labelled = (name: string, meta: FieldMeta): FieldMeta =>
  name === 'applies_to' && meta.choices ? { ...meta, choices: meta.choices.map(([value, label]) => [value, TARGET_LABELS[value as keyof typeof TARGET_LABELS] ?? label]) } : meta;

/** Add or edit a scanner: the plain fields from OPTIONS (applies_to as check boxes), then the tool's YAML configuration. */
export default function ScannerForm({ config, object }: { config: ResourceConfig; object?: ResourceObject<'scanners'> }) {
  return (
    <WritableFields url={object ? object.url : `/api/v2/${config.key}/`} editing={!!object} refusal={object ? 'You may not change this scanner.' : 'You may not add scanners.'}>
      {(fields) => <FormBody config={config} object={object} fields={fields} />}
    </WritableFields>
  );
}

function FormBody({ config, object, fields }: { config: ResourceConfig; object?: ResourceObject<'scanners'>; fields: Record<string, FieldMeta> }) {
  const [query] = useSearchParams();
  const navigate = useNavigate();
  const [values, setValues] = useState<Record<string, unknown>>(() => plainFieldValues(fields, object, query, OWN_FIELDS));
  const [toolConfig, setToolConfig] = useState<string>(() => String(object?.config ?? ''));
  const { save, saving, failure, errors } = useSave(config.key, object, (k) => k in fields);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save({ ...sentFieldValues(values, fields, !!object), config: toolConfig });
  };

  const shown = Object.entries(fields).filter(([name]) => !OWN_FIELDS.has(name));
  const configError = errors.config;
  const tool = String(values.tool ?? '');
  return (
    <Form onSubmit={submit} aria-label={`${object ? 'Edit' : 'Add'} scanner`} noValidate>
      <ErrorAlert error={failure} title="Not saved" />
      <Grid hasGutter>
        {shown.map(([name, meta]) => (
          <GridItem key={name} span={12} md={name === 'applies_to' ? 12 : 6}>
            <FieldInput name={name} meta={labelled(name, meta)} value={values[name]} onChange={(v) => setValues((old) => ({ ...old, [name]: v }))} error={errors[name]} />
          </GridItem>
        ))}
      </Grid>
      {fields.config && (
        <FormGroup label={fields.config.label ?? 'Config'} fieldId="field-config">
          <TextArea
            id="field-config"
            className="drover-mono"
            value={toolConfig}
            onChange={(_e, v) => setToolConfig(v)}
            rows={12}
            resizeOrientation="vertical"
            spellCheck={false}
            placeholder={EXAMPLES[tool as keyof typeof EXAMPLES] ?? ''}
            validated={configError ? 'error' : 'default'}
            aria-describedby="field-config-help"
          />
          <FormHelperText>
            <HelperText>
              <HelperTextItem variant={configError ? 'error' : 'default'} id="field-config-help">{configError ?? fields.config.help_text}</HelperTextItem>
            </HelperText>
          </FormHelperText>
        </FormGroup>
      )}
      <ActionGroup>
        <Button type="submit" variant="primary" isLoading={saving} isDisabled={saving}>Save</Button>
        <Button variant="link" onClick={() => navigate(-1)}>Cancel</Button>
      </ActionGroup>
    </Form>
  );
}
