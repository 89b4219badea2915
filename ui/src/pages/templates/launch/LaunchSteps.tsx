import { Form, FormGroup, Grid, GridItem, TextInput, Title } from '@patternfly/react-core';
import { fieldHelp } from '../../../components/field-help';
import type { FieldMeta } from '../../../api/types';
import { FieldInput } from '../../../components/FieldInput';
import { MultiReferenceSelect, type Picked } from '../../../components/MultiReferenceSelect';
import { ReferenceSelect } from '../../../components/ReferenceSelect';
import { VariablesEditor } from '../../../components/VariablesEditor';
import { asks, OTHER_PROMPTS, passwordsNeeded, type LaunchDescription, type LaunchValues } from './launch-plan';

export interface StepProps {
  description: LaunchDescription;
  values: LaunchValues;
  set: (field: string, value: unknown) => void;
  errors: Record<string, string>;
}


const noSubmit = (e: React.FormEvent) => e.preventDefault();

export function InventoryStep({ values, set, errors }: StepProps) {
  return (
    <Form onSubmit={noSubmit}>
      <FormGroup label="Inventory" fieldId="launch-inventory" isRequired>
        <ReferenceSelect id="launch-inventory" label="Inventory" listUrl="/api/v2/inventories/" value={values.inventory} onChange={(v) => set('inventory', v)} validated={errors.inventory ? 'error' : 'default'} />
        {fieldHelp('launch-inventory', errors.inventory, 'The hosts the run acts on.')}
      </FormGroup>
    </Form>
  );
}

export function CredentialsStep({ description, values, set, errors }: StepProps) {
  const needed = passwordsNeeded(description, values);
  const error = errors.credentials ?? errors.credential;
  return (
    <Form onSubmit={noSubmit}>
      {asks(description, 'credential') && (
        <FormGroup label="Credentials" fieldId="launch-credentials">
          <MultiReferenceSelect id="launch-credentials" label="Credentials" listUrl="/api/v2/credentials/" value={values.credentials} onChange={(v) => set('credentials', v)} validated={error ? 'error' : 'default'} />
          {fieldHelp('launch-credentials', error)}
        </FormGroup>
      )}
      {needed.length > 0 && <Title headingLevel="h3" size="md">Passwords the credentials ask for</Title>}
      {needed.map((name) => (
        <FormGroup key={name} label={passwordLabel(name)} fieldId={`launch-password-${name}`} isRequired>
          <TextInput
            id={`launch-password-${name}`}
            type="password"
            autoComplete="new-password"
            value={values.passwords[name] ?? ''}
            onChange={(_e, v) => set('passwords', { ...values.passwords, [name]: v })}
            validated={errors[`password.${name}`] ? 'error' : 'default'}
          />
          {fieldHelp(`launch-password-${name}`, errors[`password.${name}`])}
        </FormGroup>
      ))}
      {errors.passwords_needed_to_start && fieldHelp('launch-passwords', errors.passwords_needed_to_start)}
    </Form>
  );
}

const PASSWORD_LABELS: Record<string, string> = {
  ssh_password: 'SSH password',
  become_password: 'Privilege escalation password',
  ssh_key_unlock: 'Private key passphrase',
  vault_password: 'Vault password',
};
const passwordLabel = (name: string) => PASSWORD_LABELS[name] ?? (name.startsWith('vault_password.') ? `Vault password (${name.slice('vault_password.'.length)})` : name);

export function ExecutionEnvironmentStep({ values, set, errors }: StepProps) {
  return (
    <Form onSubmit={noSubmit}>
      <FormGroup label="Execution environment" fieldId="launch-execution-environment">
        <ReferenceSelect
          id="launch-execution-environment"
          label="Execution environment"
          listUrl="/api/v2/execution_environments/"
          value={values.execution_environment}
          onChange={(v) => set('execution_environment', v)}
          validated={errors.execution_environment ? 'error' : 'default'}
        />
        {fieldHelp('launch-execution-environment', errors.execution_environment, 'Empty: the template’s own.')}
      </FormGroup>
    </Form>
  );
}

export function InstanceGroupsStep({ values, set, errors }: StepProps) {
  return (
    <Form onSubmit={noSubmit}>
      <FormGroup label="Instance groups" fieldId="launch-instance-groups">
        <MultiReferenceSelect id="launch-instance-groups" label="Instance groups" listUrl="/api/v2/instance_groups/" value={values.instance_groups} onChange={(v) => set('instance_groups', v)} validated={errors.instance_groups ? 'error' : 'default'} />
        {fieldHelp('launch-instance-groups', errors.instance_groups, 'In order of preference.')}
      </FormGroup>
    </Form>
  );
}

/** How each of the other prompts is edited (FieldInput's metadata). */
export const PROMPT_META: Record<string, FieldMeta> = {
  job_type: { type: 'choice', label: 'Job type', required: true, choices: [['run', 'Run'], ['check', 'Check']] },
  limit: { type: 'string', label: 'Limit', help_text: 'A host pattern that narrows the inventory.' },
  scm_branch: { type: 'string', label: 'Source control branch' },
  verbosity: { type: 'choice', label: 'Verbosity', required: true, choices: [[0, '0 (Normal)'], [1, '1 (Verbose)'], [2, '2 (More verbose)'], [3, '3 (Debug)'], [4, '4 (Connection debug)'], [5, '5 (WinRM debug)']] },
  forks: { type: 'integer', label: 'Forks' },
  timeout: { type: 'integer', label: 'Timeout (seconds)' },
  job_slice_count: { type: 'integer', label: 'Job slicing' },
  job_tags: { type: 'string', label: 'Job tags', help_text: 'Comma-separated tags to run.' },
  skip_tags: { type: 'string', label: 'Skip tags', help_text: 'Comma-separated tags to skip.' },
  diff_mode: { type: 'boolean', label: 'Show changes (diff mode)' },
};

export function OtherPromptsStep({ description, values, set, errors }: StepProps) {
  const asked = OTHER_PROMPTS.filter(([, flag]) => asks(description, flag)).map(([field]) => field);
  return (
    <Form onSubmit={noSubmit}>
      <Grid hasGutter>
        {asked.map((field) => {
          if (field === 'labels') {
            return (
              <GridItem key={field} span={12}>
                <FormGroup label="Labels" fieldId="launch-labels">
                  <MultiReferenceSelect id="launch-labels" label="Labels" listUrl="/api/v2/labels/" value={values.labels as Picked[]} onChange={(v) => set('labels', v)} validated={errors.labels ? 'error' : 'default'} />
                  {fieldHelp('launch-labels', errors.labels)}
                </FormGroup>
              </GridItem>
            );
          }
          if (field === 'extra_vars') {
            return (
              <GridItem key={field} span={12}>
                <VariablesEditor id="launch-extra-vars" label="Extra variables" value={values.extra_vars} onChange={(text) => {
                    set('extra_vars_invalid', text === undefined);
                    if (text !== undefined) set('extra_vars', text);
                  }} error={errors.extra_vars} />
              </GridItem>
            );
          }
          return (
            <GridItem key={field} span={12} md={6}>
              <FieldInput name={field} meta={PROMPT_META[field]} value={values[field]} onChange={(v) => set(field, v)} error={errors[field]} />
            </GridItem>
          );
        })}
      </Grid>
    </Form>
  );
}
