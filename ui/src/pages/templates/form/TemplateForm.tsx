import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ActionGroup, Button, Form } from '@patternfly/react-core';
import { http } from '../../../api/client';
import { ApiError } from '../../../api/errors';
import type { FieldMeta, ResourceObject } from '../../../api/types';
import type { ResourceConfig } from '../../../resources/types';
import { INVALID } from '../../../components/FieldInput';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { Loading } from '../../../components/Loading';
import { plainFieldValues, sentFieldValues, WritableFields } from '../../../components/WritableFields';
import { useObject } from '../../../hooks/api-hooks';
import { loadChosen, NOTHING_CHOSEN, SyncError, syncChosen, type Chosen } from './related-lists';
import { syncMessage } from './sync-message';
import type { RelatedList } from './template-layout';
import { TemplateSections } from './TemplateSections';
import '../templates.css';

export type Template = ResourceObject<'job_templates' | 'workflow_job_templates'>;

/** The related lists each kind of template has (AWX: workflow templates have labels only). */
const RELATED_LISTS: Record<string, RelatedList[]> = {
  job_templates: ['credentials', 'labels', 'instance_groups'],
  workflow_job_templates: ['labels'],
};

/**
 * Add or edit a job or workflow template, in AWX's sections: details (each promptable field with
 * its "Prompt on launch" switch, the credentials, labels and instance groups beside them),
 * options, the provisioning callback and the webhook. The template is saved first, then its
 * related lists are brought to what was chosen.
 */
export default function TemplateForm({ config, object }: { config: ResourceConfig; object?: Template }) {
  const lists = RELATED_LISTS[config.key] ?? [];
  const chosen = useQuery({
    queryKey: [object?.url, 'related lists'],
    queryFn: () => loadChosen(object!.related, lists),
    enabled: !!object,
    // The form starts from what the server has now, never from a list kept from an earlier visit.
    gcTime: 0,
  });
  if (object && chosen.isPending) return <Loading />;
  if (chosen.error) return <ErrorAlert error={chosen.error} />;
  return (
    <WritableFields url={object ? object.url : `/api/v2/${config.key}/`} editing={!!object} refusal={object ? 'You may not change this template.' : `You may not add ${config.label.toLowerCase()}.`}>
      {(fields) => <FormBody config={config} object={object} fields={fields} lists={lists} loaded={chosen.data ?? NOTHING_CHOSEN} />}
    </WritableFields>
  );
}

function FormBody({ config, object, fields, lists, loaded }: { config: ResourceConfig; object?: Template; fields: Record<string, FieldMeta>; lists: RelatedList[]; loaded: Chosen }) {
  const [query] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<Record<string, unknown>>(() => plainFieldValues(fields, object, query, new Set()));
  const [chosen, setChosen] = useState<Chosen>(loaded);
  const [baseline, setBaseline] = useState<Chosen>(loaded);
  // A template created by a save whose related lists were then refused: later saves change it.
  const [saved, setSaved] = useState<Template | undefined>(object);
  const [callback, setCallback] = useState(() => !!object && 'host_config_key' in object && !!object.host_config_key);
  const [webhook, setWebhook] = useState(() => !!object?.webhook_service);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [saving, setSaving] = useState(false);
  const set = (name: string, value: unknown) => setValues((v) => ({ ...v, [name]: value }));

  // Labels belong to the template's organization: a workflow's own, a job template's project's.
  const project = useObject<ResourceObject<'projects'>>(typeof values.project === 'number' ? `/api/v2/projects/${values.project}/` : undefined);
  const organization = (typeof values.organization === 'number' ? values.organization : null) ?? project.data?.organization ?? saved?.organization ?? null;

  const body = () => {
    const sent = sentFieldValues(values, fields, !!saved);
    if ('host_config_key' in fields && !callback) sent.host_config_key = '';
    if ('webhook_service' in fields && !webhook) Object.assign(sent, { webhook_service: '', webhook_credential: null });
    return sent;
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const invalid = Object.entries(values).filter(([, v]) => v === INVALID).map(([k]) => k);
    if (invalid.length) return setErrors(Object.fromEntries(invalid.map((k) => [k, 'Fix the syntax before saving.'])));
    if (callback && !String(values.host_config_key ?? '').trim()) return setErrors({ host_config_key: 'A provisioning callback needs a host config key.' });
    setSaving(true);
    setFailure(null);
    setErrors({});
    let template = saved;
    try {
      template = saved ? await http.put<Template>(saved.url, body()) : await http.post<Template>(`/api/v2/${config.key}/`, body());
      setSaved(template);
      await syncChosen(template.related, lists, baseline, chosen, template.organization ?? organization);
      await queryClient.invalidateQueries();
      navigate(`/${config.key}/${template.id}`);
    } catch (err) {
      if (err instanceof SyncError) {
        setErrors({ [err.list]: syncMessage(err.list, err.cause) });
        if (template) setBaseline(await loadChosen(template.related, lists));
      } else if (err instanceof ApiError && err.status === 400) {
        const byField = err.fieldErrors;
        setErrors(byField);
        if (!Object.keys(byField).length || Object.keys(byField).some((k) => !(k in fields))) setFailure(err);
      } else setFailure(err);
    } finally {
      setSaving(false);
    }
  };

  return (
    <Form onSubmit={submit} aria-label={`${object ? 'Edit' : 'Add'} ${config.singular.toLowerCase()}`} noValidate>
      <ErrorAlert error={failure} title="Not saved" />
      <TemplateSections
        config={config}
        fields={fields}
        values={values}
        set={set}
        errors={errors}
        lists={lists}
        chosen={chosen}
        setChosen={setChosen}
        organization={organization}
        callback={callback}
        setCallback={setCallback}
        webhook={webhook}
        setWebhook={setWebhook}
        saved={saved}
      />
      <ActionGroup>
        <Button type="submit" variant="primary" isLoading={saving} isDisabled={saving}>Save</Button>
        <Button variant="link" onClick={() => navigate(-1)}>Cancel</Button>
      </ActionGroup>
    </Form>
  );
}
