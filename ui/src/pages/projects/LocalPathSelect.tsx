import { useQuery } from '@tanstack/react-query';
import { FormGroup, FormSelect, FormSelectOption } from '@patternfly/react-core';
import { api, must } from '../../api/client';
import type { FieldMeta } from '../../api/types';
import { FieldInput } from '../../components/FieldInput';
import { fieldHelp } from '../../components/field-help';

/**
 * A manual project's directory, picked among the directories of the projects root that no other
 * project uses (AWX's project_local_paths of /api/v2/config/); typed when the API does not list them.
 */
export function LocalPathSelect({ meta, value, onChange, error }: { meta: FieldMeta; value: unknown; onChange: (value: unknown) => void; error?: string }) {
  const config = useQuery({ queryKey: ['/api/v2/config/'], queryFn: () => must(api.GET('/api/v2/config/')), staleTime: 30_000 });
  const paths = config.data?.project_local_paths;
  if (!paths) return <FieldInput name="local_path" label="Playbook directory" meta={meta} value={value} onChange={onChange} error={error} />;
  const current = typeof value === 'string' ? value : '';
  const choices = current && !paths.includes(current) ? [current, ...paths] : paths;
  const id = 'field-local_path';
  const hint = choices.length
    ? `A directory of ${config.data?.project_base_dir ?? 'the projects root'} holding the playbooks.`
    : `No directory of ${config.data?.project_base_dir ?? 'the projects root'} is free: create one there holding the playbooks.`;
  return (
    <FormGroup label="Playbook directory" fieldId={id} isRequired>
      <FormSelect id={id} value={current} onChange={(_e, v) => onChange(v)} validated={error ? 'error' : 'default'} aria-describedby={`${id}-help`}>
        <FormSelectOption value="" label="Choose a directory" isDisabled />
        {choices.map((p) => (
          <FormSelectOption key={p} value={p} label={p} />
        ))}
      </FormSelect>
      {fieldHelp(id, error, hint)}
    </FormGroup>
  );
}
