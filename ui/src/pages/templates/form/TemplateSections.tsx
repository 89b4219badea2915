import { FormGroup, FormSection, Grid, GridItem, Switch } from '@patternfly/react-core';
import type { FieldMeta } from '../../../api/types';
import type { ResourceConfig } from '../../../resources/types';
import { FieldInput } from '../../../components/FieldInput';
import { CallbackSection } from './CallbackSection';
import { CredentialsPicker } from './CredentialsPicker';
import { InstanceGroupsList } from './InstanceGroupsList';
import { LabelsInput } from './LabelsInput';
import { PromptSwitch } from './PromptSwitch';
import { WebhookSection } from './WebhookSection';
import type { Chosen } from './related-lists';
import type { Template } from './TemplateForm';
import { CALLBACK_FIELDS, DETAIL_ORDER, FIELD_LABELS, isPromptFlag, promptFlag, WEBHOOK_FIELDS, type RelatedList } from './template-layout';

const WIDE = new Set(['extra_vars', 'description']);

/** The sections of a template's form: details, options, provisioning callback, webhook. */
export function TemplateSections({ config, fields, values, set, errors, lists, chosen, setChosen, organization, callback, setCallback, webhook, setWebhook, saved }: {
  config: ResourceConfig;
  fields: Record<string, FieldMeta>;
  values: Record<string, unknown>;
  set: (name: string, value: unknown) => void;
  errors: Record<string, string>;
  lists: RelatedList[];
  chosen: Chosen;
  setChosen: (update: (old: Chosen) => Chosen) => void;
  organization: number | null;
  callback: boolean;
  setCallback: (on: boolean) => void;
  webhook: boolean;
  setWebhook: (on: boolean) => void;
  saved?: Template;
}) {
  const hidden = new Set(config.hiddenFormFields ?? []);
  const plain = Object.keys(fields).filter((n) => !hidden.has(n) && !isPromptFlag(n) && !CALLBACK_FIELDS.has(n) && !WEBHOOK_FIELDS.has(n));
  const promptOf = (name: string) => promptFlag(name, fields);
  // Booleans without a prompt are options; every other field is a detail, in AWX's order first.
  const isOption = (n: string) => fields[n].type === 'boolean' && !promptOf(n);
  const details = [...DETAIL_ORDER.filter((n) => plain.includes(n) || lists.includes(n as RelatedList)), ...plain.filter((n) => !DETAIL_ORDER.includes(n) && !isOption(n))];
  const options = plain.filter(isOption);
  const shownPrompts = new Set(details.map(promptOf).filter(Boolean));
  const otherPrompts = Object.keys(fields).filter((n) => isPromptFlag(n) && !shownPrompts.has(n) && !hidden.has(n));

  const labelOf = (name: string) => FIELD_LABELS[name] ?? fields[name]?.label ?? name;
  const promptSwitch = (name: string) => {
    const flag = promptOf(name);
    return flag ? <PromptSwitch flag={flag} field={labelOf(name).toLowerCase()} checked={!!values[flag]} onChange={(on) => set(flag, on)} /> : undefined;
  };

  const detail = (name: string) => {
    if (name === 'credentials' && lists.includes('credentials')) {
      return <CredentialsPicker value={chosen.credentials} onChange={(credentials) => setChosen((c) => ({ ...c, credentials }))} error={errors.credentials} labelInfo={promptSwitch('credentials')} />;
    }
    if (name === 'labels' && lists.includes('labels')) {
      return <LabelsInput value={chosen.labels} onChange={(labels) => setChosen((c) => ({ ...c, labels }))} organization={organization} error={errors.labels} labelInfo={promptSwitch('labels')} />;
    }
    if (name === 'instance_groups' && lists.includes('instance_groups')) {
      return <InstanceGroupsList value={chosen.instance_groups} onChange={(instance_groups) => setChosen((c) => ({ ...c, instance_groups }))} error={errors.instance_groups} labelInfo={promptSwitch('instance_groups')} />;
    }
    return <FieldInput name={name} label={FIELD_LABELS[name]} meta={fields[name]} value={values[name]} onChange={(v) => set(name, v)} error={errors[name]} values={values} labelInfo={promptSwitch(name)} />;
  };

  return (
    <>
      <FormSection title="Details" titleElement="h2">
        <Grid hasGutter md={6}>
          {details.map((name) => (
            <GridItem key={name} span={12} md={WIDE.has(name) ? 12 : 6}>
              {detail(name)}
            </GridItem>
          ))}
        </Grid>
      </FormSection>
      <FormSection title="Options" titleElement="h2">
        <Grid hasGutter md={6}>
          {options.map((name) => (
            <GridItem key={name} span={12} md={6}>
              <FieldInput name={name} label={FIELD_LABELS[name]} meta={fields[name]} value={values[name]} onChange={(v) => set(name, v)} error={errors[name]} />
            </GridItem>
          ))}
          {otherPrompts.map((flag) => (
            <GridItem key={flag} span={12} md={6}>
              <FieldInput name={flag} meta={fields[flag]} value={values[flag]} onChange={(v) => set(flag, v)} error={errors[flag]} />
            </GridItem>
          ))}
          {'host_config_key' in fields && (
            <GridItem span={12} md={6}>
              <FormGroup fieldId="option-callback" label="Provisioning callbacks">
                <Switch id="option-callback" aria-label="Provisioning callbacks" label="Let a host ask for its configuration at the callback URL" isChecked={callback} onChange={(_e, on) => setCallback(on)} />
              </FormGroup>
            </GridItem>
          )}
          {'webhook_service' in fields && (
            <GridItem span={12} md={6}>
              <FormGroup fieldId="option-webhook" label="Webhook">
                <Switch id="option-webhook" aria-label="Enable webhook" label="Launch from a source control service's webhook" isChecked={webhook} onChange={(_e, on) => setWebhook(on)} />
              </FormGroup>
            </GridItem>
          )}
        </Grid>
      </FormSection>
      {callback && (
        <FormSection title="Provisioning callback" titleElement="h2">
          <CallbackSection templateUrl={saved?.url} hostConfigKey={String(values.host_config_key ?? '')} onChange={(key) => set('host_config_key', key)} error={errors.host_config_key} />
        </FormSection>
      )}
      {webhook && (
        <FormSection title="Webhook" titleElement="h2">
          <WebhookSection fields={fields} values={values} set={set} errors={errors} templateUrl={saved?.url} savedService={saved?.webhook_service} plural={config.key} id={saved?.id} />
        </FormSection>
      )}
    </>
  );
}
