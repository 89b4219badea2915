import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { ActionGroup, Button, Form, FormGroup, FormSelect, FormSelectOption, Grid, GridItem } from '@patternfly/react-core';
import type { ApiBody, FieldMeta, ResourceObject } from '../../api/types';
import type { ResourceConfig } from '../../resources/types';
import { useSave } from '../../hooks/use-save';
import { ErrorAlert } from '../../components/ErrorAlert';
import { FieldInput } from '../../components/FieldInput';
import { ReferenceSelect } from '../../components/ReferenceSelect';
import { fieldHelp } from '../../components/field-help';
import { plainFieldValues, sentFieldValues, WritableFields } from '../../components/WritableFields';
import { CatalogIcon, ICONS } from './CatalogIcon';

type Item = ResourceObject<'service_catalog_items'>;
type Body = ApiBody<'/api/v2/service_catalog_items/', 'post'>;
type Kind = 'job_template' | 'workflow_job_template';

/** Fields this form edits with controls of its own. */
const OWN_FIELDS = new Set(['job_template', 'workflow_job_template', 'tags', 'approver_team']);
const KINDS: Record<Kind, { label: string; list: string }> = {
  job_template: { label: 'Job template', list: '/api/v2/job_templates/' },
  workflow_job_template: { label: 'Workflow template', list: '/api/v2/workflow_job_templates/' },
};
const ORDER = ['name', 'description', 'organization', 'category', 'icon', 'requires_approval', 'enabled'];

/** Add or edit a catalog item: its template (job or workflow, of its organization), approval and approvers, how the catalog shows it. */
export default function CatalogItemForm({ config, object }: { config: ResourceConfig; object?: Item }) {
  return (
    <WritableFields url={object ? object.url : `/api/v2/${config.key}/`} editing={!!object} refusal={object ? 'You may not change this catalog item.' : 'You may not add catalog items.'}>
      {(fields) => <FormBody config={config} object={object} fields={fields} />}
    </WritableFields>
  );
}

function FormBody({ config, object, fields }: { config: ResourceConfig; object?: Item; fields: Record<string, FieldMeta> }) {
  const [query] = useSearchParams();
  const navigate = useNavigate();
  const [values, setValues] = useState<Record<string, unknown>>(() => plainFieldValues(fields, object, query, OWN_FIELDS));
  const [kind, setKind] = useState<Kind>(object?.workflow_job_template ? 'workflow_job_template' : 'job_template');
  const [template, setTemplate] = useState<number | null>(object ? (object.workflow_job_template ?? object.job_template) : null);
  const [team, setTeam] = useState<number | null>(object?.approver_team ?? null);
  const [tags, setTags] = useState<string[]>(object?.tags ?? []);
  const { save, saving, failure, errors } = useSave(config.key, object, (k) => k in fields);
  const organization = typeof values.organization === 'number' ? values.organization : undefined;
  const inOrganization = organization ? { organization } : undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const body = {
      ...sentFieldValues(values, fields, !!object),
      job_template: kind === 'job_template' ? template : null,
      workflow_job_template: kind === 'workflow_job_template' ? template : null,
      approver_team: team,
      tags,
    } satisfies Partial<Body>;
    void save(body);
  };
  const change = (name: string, value: unknown) => {
    setValues((old) => ({ ...old, [name]: value }));
    // Templates and teams are the organization's: another organization's would be refused.
    if (name === 'organization' && value !== values.organization) {
      setTemplate(null);
      setTeam(null);
    }
  };

  const field = (name: string, extra: Partial<FieldMeta> = {}, labelInfo?: React.ReactNode) =>
    fields[name] && <FieldInput name={name} meta={{ ...fields[name], ...extra }} value={values[name]} onChange={(v) => change(name, v)} error={errors[name]} labelInfo={labelInfo} />;
  const templateError = errors.job_template ?? errors.workflow_job_template;
  const iconHelp = `${fields.icon?.help_text ?? ''} Names: ${Object.keys(ICONS).join(', ')}. An image must be on this site.`;
  const rest = Object.keys(fields).filter((name) => !OWN_FIELDS.has(name) && !ORDER.includes(name));

  return (
    <Form onSubmit={submit} aria-label={`${object ? 'Edit' : 'Add'} catalog item`} noValidate>
      <ErrorAlert error={failure} title="Not saved" />
      <Grid hasGutter>
        <GridItem span={12} md={6}>{field('name')}</GridItem>
        <GridItem span={12} md={6}>{field('organization')}</GridItem>
        <GridItem span={12}>{field('description')}</GridItem>
        <GridItem span={12} md={4}>
          <FormGroup label="Launches a" fieldId="catalog-template-kind" isRequired>
            <FormSelect id="catalog-template-kind" value={kind} onChange={(_e, v) => { setKind(v as Kind); setTemplate(null); }}>
              {(Object.keys(KINDS) as Kind[]).map((k) => <FormSelectOption key={k} value={k} label={KINDS[k].label} />)}
            </FormSelect>
          </FormGroup>
        </GridItem>
        <GridItem span={12} md={8}>
          <FormGroup label={KINDS[kind].label} fieldId="catalog-template" isRequired>
            <ReferenceSelect key={`${kind}-${organization}`} id="catalog-template" label={KINDS[kind].label} listUrl={KINDS[kind].list} value={template} onChange={setTemplate} query={inOrganization} validated={templateError ? 'error' : 'default'} />
            {fieldHelp('catalog-template', templateError, organization ? 'A template of the organization whose survey requesters answer.' : 'Choose the organization first: the template is one of its.')}
          </FormGroup>
        </GridItem>
        <GridItem span={12} md={6}>{field('category', { help_text: 'The catalog groups items by category.' })}</GridItem>
        <GridItem span={12} md={6}>{field('icon', { help_text: iconHelp }, <CatalogIcon icon={String(values.icon ?? '')} size={16} />)}</GridItem>
        <GridItem span={12} md={6}>
          {fields.tags && <FieldInput name="tags" meta={{ ...fields.tags, type: 'list', help_text: 'One tag a line.' }} value={tags} onChange={(v) => setTags(v as string[])} error={errors.tags} />}
        </GridItem>
        <GridItem span={12} md={6}>
          {field('requires_approval')}
          {field('enabled')}
        </GridItem>
        {fields.approver_team && (
          <GridItem span={12} md={6}>
            <FormGroup label="Approver team" fieldId="catalog-approver-team">
              <ReferenceSelect key={String(organization)} id="catalog-approver-team" label="Approver team" listUrl="/api/v2/teams/" value={team} onChange={setTeam} query={inOrganization} validated={errors.approver_team ? 'error' : 'default'} />
              {fieldHelp('catalog-approver-team', errors.approver_team, values.requires_approval ? "Its members approve requests; empty: the organization's admins." : 'Used when the item requires approval.')}
            </FormGroup>
          </GridItem>
        )}
        {rest.map((name) => <GridItem key={name} span={12} md={6}>{field(name)}</GridItem>)}
      </Grid>
      <ActionGroup>
        <Button type="submit" variant="primary" isLoading={saving} isDisabled={saving}>Save</Button>
        <Button variant="link" onClick={() => navigate(-1)}>Cancel</Button>
      </ActionGroup>
    </Form>
  );
}
